/**
 * A job picker that searches the server by name as one types (an installation may have
 * thousands of jobs), within one app when `appId` is given. The chosen job stays labelled by its
 * name even when it is not among the search's answers.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Select } from 'antd';
import { type CSSProperties, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';
import { useJob } from './lookups';

const SEARCH_LIMIT = 20;
const SEARCH_DELAY_MS = 250;

interface JobSelectProps {
  appId: number | undefined;
  value: number | undefined;
  onChange(jobId: number | undefined): void;
  id?: string;
  style?: CSSProperties;
}

export function JobSelect({ appId, value, onChange, id, style }: JobSelectProps) {
  const { t } = useTranslation('fires');
  const [typed, setTyped] = useState('');
  const [term, setTerm] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setTerm(typed.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [typed]);

  const found = useQuery({
    queryKey: ['listJobs', { appId, name: term, limit: SEARCH_LIMIT }],
    queryFn: () =>
      call(
        client.GET('/api/v1/jobs', {
          params: {
            query: {
              ...(appId === undefined ? {} : { appId }),
              ...(term === '' ? {} : { name: term }),
              limit: SEARCH_LIMIT,
              offset: 0,
            },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const chosen = useJob(value);

  const options = (found.data?.items ?? []).map((job) => ({
    value: job.id,
    label: `${job.name} (#${job.id})`,
  }));
  if (value !== undefined && !options.some((option) => option.value === value)) {
    const job = chosen.data;
    options.unshift({ value, label: job ? `${job.name} (#${job.id})` : t('jobNumber', { id: value }) });
  }

  return (
    <Select<number>
      id={id}
      style={style}
      allowClear
      placeholder={t('filters.allJobs')}
      value={value}
      options={options}
      loading={found.isFetching}
      notFoundContent={found.isFetching ? t('common:states.loading') : t('filters.noJobs')}
      showSearch={{ filterOption: false, onSearch: setTyped }}
      onChange={(next) => {
        setTyped('');
        onChange(next ?? undefined);
      }}
      onOpenChange={(open) => {
        if (!open) setTyped('');
      }}
    />
  );
}
