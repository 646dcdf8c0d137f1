/**
 * A dialog holding a form: the form wraps the whole dialog, so Enter in a field submits it and
 * the OK button is the form's submit button. An error the form cannot put on a field shows at
 * the top.
 */
import { Form, type FormInstance, Modal } from 'antd';
import type { ReactNode } from 'react';
import { ApiErrorAlert } from './ApiErrorAlert';

export interface FormModalProps<T> {
  open: boolean;
  title: ReactNode;
  form: FormInstance<T>;
  onFinish(values: T): void;
  onCancel(): void;
  busy?: boolean;
  okText?: ReactNode;
  error?: unknown;
  initialValues?: Partial<T>;
  children: ReactNode;
}

export function FormModal<T>({
  open,
  title,
  form,
  onFinish,
  onCancel,
  busy,
  okText,
  error,
  initialValues,
  children,
}: FormModalProps<T>) {
  return (
    <Modal
      open={open}
      title={title}
      onCancel={onCancel}
      okText={okText}
      okButtonProps={{ htmlType: 'submit', loading: busy }}
      destroyOnHidden
      maskClosable={false}
      modalRender={(dom) => (
        <Form<T>
          form={form}
          layout="vertical"
          onFinish={onFinish}
          initialValues={initialValues}
          clearOnDestroy
          scrollToFirstError
        >
          {dom}
        </Form>
      )}
    >
      {error !== undefined && (
        <div style={{ marginBottom: 16 }}>
          <ApiErrorAlert error={error} />
        </div>
      )}
      {children}
    </Modal>
  );
}
