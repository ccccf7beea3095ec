import type { ComponentChildren, TargetedEvent } from 'preact';
import { ErrorMessage } from '../ui';

/** A form on one line (it wraps on a phone): its fields, the primary button, then what went wrong (useSubmit's). */
export function InlineForm({
  submit,
  label,
  children,
}: {
  submit: { onSubmit: (event: TargetedEvent<HTMLFormElement>) => void; error: unknown };
  label: string;
  children: ComponentChildren;
}) {
  return (
    <>
      <form onSubmit={submit.onSubmit} class="inline-form">
        {children}
        <button type="submit" class="primary">
          {label}
        </button>
      </form>
      <ErrorMessage error={submit.error} />
    </>
  );
}
