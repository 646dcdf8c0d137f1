/**
 * The job form's Handler field: free text, offering the handler names the chosen app's online
 * executors registered. Tickwheel executors send theirs with each heartbeat; XXL-JOB executors
 * send none, and a job may be written before its executor runs, so any name can still be typed.
 */
import { useQuery } from '@tanstack/react-query';
import { AutoComplete, Form, Input } from 'antd';
import { useTranslation } from 'react-i18next';
import { call, client } from '../../api/client';

interface HandlerInputProps {
  id?: string;
  value?: string;
  onChange?: (value: string) => void;
  'aria-invalid'?: boolean;
}

export function HandlerInput(props: HandlerInputProps) {
  const { t } = useTranslation('jobs');
  const appId = Form.useWatch<number | undefined>('appId', Form.useFormInstance());
  const handlers = useAppHandlers(appId);
  const names = handlers.data?.items ?? [];
  return (
    <AutoComplete
      {...props}
      options={names.map((name) => ({ value: name, label: name }))}
      showSearch={{
        filterOption: (input, option) => includesIgnoringCase(String(option?.value ?? ''), input),
      }}
      placeholder={names.length > 0 ? t('fields.executorHandlerPlaceholder') : undefined}
    >
      <Input spellCheck={false} autoComplete="off" />
    </AutoComplete>
  );
}

/** The handler names of the app's online executors (`listAppHandlers`); none until an app is chosen. */
function useAppHandlers(appId: number | undefined) {
  return useQuery({
    queryKey: ['apps', 'handlers', appId],
    queryFn: () => call(client.GET('/api/v1/apps/{id}/handlers', { params: { path: { id: appId! } } })),
    enabled: appId !== undefined,
    // Executors come and go; a form left open picks up a new one when the field is used again.
    staleTime: 10_000,
  });
}

function includesIgnoringCase(text: string, search: string): boolean {
  return text.toLowerCase().includes(search.toLowerCase());
}
