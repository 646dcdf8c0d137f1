/**
 * `/jobs/new` (optionally `?appId=` or `?copyFrom=<job id>`) and `/jobs/:id`: loads what the form
 * starts from — nothing, the job to copy, or the job to edit — and hands it to `JobForm`.
 */
import { Result } from 'antd';
import { useTranslation } from 'react-i18next';
import { useParams, useSearchParams } from 'react-router-dom';
import { ApiErrorAlert } from '../../components/ApiErrorAlert';
import { PageLoading } from '../../components/PageLoading';
import { PageTitle } from '../../components/PageTitle';
import { JobForm } from './JobForm';
import { jobValues, newJobValues } from './jobValues';
import { useJob } from './queries';

function idOf(text: string | null | undefined): number | undefined {
  if (text === null || text === undefined || !/^\d+$/.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 && Number.isSafeInteger(id) ? id : undefined;
}

export default function JobEditPage() {
  const { t } = useTranslation('jobs');
  const params = useParams();
  const [search] = useSearchParams();
  const editId = idOf(params.id);
  const copyId = idOf(search.get('copyFrom'));
  const source = useJob(editId ?? copyId);

  if (params.id !== undefined && editId === undefined) {
    return <Result status="404" title="404" subTitle={t('common:notFound')} />;
  }
  const title = editId !== undefined ? t('editTitle') : copyId !== undefined ? t('copyTitle') : t('newTitle');
  if ((editId ?? copyId) !== undefined) {
    if (source.isError) {
      return (
        <>
          <PageTitle title={title} />
          <ApiErrorAlert error={source.error} onRetry={() => void source.refetch()} />
        </>
      );
    }
    if (source.data === undefined || !source.isFetchedAfterMount) return <PageLoading />;
  }

  const job = source.data;
  if (editId !== undefined && job !== undefined) {
    return (
      <JobForm key={`edit-${job.id}`} title={title} job={job} initialValues={jobValues(job)} carried={{}} />
    );
  }
  if (copyId !== undefined && job !== undefined) {
    return (
      <JobForm
        key={`copy-${job.id}`}
        title={title}
        initialValues={{ ...jobValues(job), name: t('copyName', { name: job.name }) }}
        // The copy runs the same script: the script editor has no other way to seed a new job.
        carried={{ glueSource: job.glueSource, glueRemark: job.glueRemark }}
      />
    );
  }
  return (
    <JobForm key="new" title={title} initialValues={newJobValues(idOf(search.get('appId')))} carried={{}} />
  );
}
