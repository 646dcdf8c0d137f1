/**
 * The job form's selects that load their choices: app, time zone, child jobs and alarm channels.
 * Each takes the `id`, `value` and `onChange` a Form.Item hands it, so labels point at them.
 */
import { Select, Typography } from 'antd';
import { useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../api/client';
import { useAuth } from '../../auth/AuthContext';
import { errorText } from '../../components/ApiErrorAlert';
import { useAllApps } from '../../components/useAllApps';
import { timeZones } from './options';
import { useAlarmChannels, useDebounced, useJobChoices } from './queries';

interface ControlProps<T> {
  id?: string;
  value?: T;
  onChange?: (value: T) => void;
  'aria-invalid'?: boolean;
}

export function AppSelect({
  allowClear,
  ...props
}: ControlProps<number | undefined> & { allowClear?: boolean }) {
  const { t } = useTranslation('jobs');
  const apps = useAllApps();
  return (
    <Select
      {...props}
      allowClear={allowClear}
      loading={apps.isLoading}
      placeholder={t('fields.appPlaceholder')}
      showSearch={{ optionFilterProp: 'label' }}
      status={apps.isError ? 'error' : undefined}
      notFoundContent={apps.isError ? errorText(apps.error, t) : undefined}
      options={apps.apps.map((app) => ({
        value: app.id,
        label: app.title === '' || app.title === app.appName ? app.appName : `${app.appName} (${app.title})`,
      }))}
    />
  );
}

export function TimeZoneSelect(props: ControlProps<string>) {
  const options = useMemo(() => {
    const zones = timeZones();
    // A stored zone the browser does not list (an old alias) stays choosable as it is.
    const all = props.value !== undefined && !zones.includes(props.value) ? [props.value, ...zones] : zones;
    return all.map((zone) => ({ value: zone, label: zone }));
  }, [props.value]);
  return (
    <Select
      {...props}
      showSearch={{
        filterOption: (input, option) =>
          String(option?.value ?? '')
            .toLowerCase()
            .replace(/_/g, ' ')
            .includes(input.toLowerCase().replace(/_/g, ' ')),
      }}
      options={options}
    />
  );
}

/** Jobs to run after this one succeeds; searched by name on the server. */
export function ChildJobSelect({ excludeId, ...props }: ControlProps<number[]> & { excludeId?: number }) {
  const { t } = useTranslation('jobs');
  const [search, setSearch] = useState('');
  const choices = useJobChoices(useDebounced(search, 300));
  // Names seen so far, so a chosen job keeps its label when a later search leaves it out.
  const names = useRef(new Map<number, string>());
  for (const job of choices.data?.items ?? []) names.current.set(job.id, job.name);
  const ids = new Set([...(choices.data?.items ?? []).map((job) => job.id), ...(props.value ?? [])]);
  ids.delete(excludeId ?? -1);
  const options = [...ids].map((id) => {
    const name = names.current.get(id);
    return { value: id, label: name === undefined ? `#${id}` : `#${id} ${name}` };
  });
  return (
    <Select
      {...props}
      mode="multiple"
      allowClear
      placeholder={t('fields.childJobIdsPlaceholder')}
      loading={choices.isFetching}
      showSearch={{ filterOption: false, onSearch: setSearch, searchValue: search }}
      onBlur={() => setSearch('')}
      notFoundContent={choices.isError ? errorText(choices.error, t) : undefined}
      options={options}
    />
  );
}

/**
 * Alarm channels by name. Only admins may list channels: anyone else sees the job's channels by
 * id, may drop them, and is told why no others are offered.
 */
export function AlarmChannelSelect(props: ControlProps<number[]>) {
  const { t } = useTranslation('jobs');
  const { isAdmin } = useAuth();
  const channels = useAlarmChannels(isAdmin);
  const refused = !isAdmin || (channels.error instanceof ApiError && channels.error.status === 403);
  const known = new Map((channels.data?.items ?? []).map((channel) => [channel.id, channel]));
  const ids = new Set([...known.keys(), ...(props.value ?? [])]);
  const options = [...ids].map((id) => {
    const channel = known.get(id);
    return {
      value: id,
      label: channel === undefined ? `#${id}` : `${channel.name} (${channel.type})`,
      disabled: channel !== undefined && !channel.enabled && !(props.value ?? []).includes(id),
    };
  });
  return (
    <>
      <Select
        {...props}
        mode="multiple"
        allowClear
        loading={channels.isLoading}
        placeholder={t('fields.alarmChannelIdsPlaceholder')}
        showSearch={{ optionFilterProp: 'label' }}
        options={options}
      />
      {(refused || channels.isError) && (
        <Typography.Text type={refused ? 'secondary' : 'danger'} style={{ display: 'block', marginTop: 4 }}>
          {refused ? t('fields.alarmChannelsAdminOnly') : errorText(channels.error, t)}
        </Typography.Text>
      )}
    </>
  );
}
