import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

let nextId = 0;
const useId = (prefix: string) => useRef(`${prefix}-${++nextId}`).current;

/** Page title: sets document.title and takes the focus after a navigation. */
export function PageTitle({ children }: { children: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${children} · OpenVox`;
    ref.current?.focus();
  }, [children]);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

type InputProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'label' | 'value'> & {
  label: string;
  hint?: string;
  value?: string | number;
};

/** A labelled input; the hint is read with it (aria-describedby). */
export function Field({ label, hint, ...input }: InputProps) {
  const id = useId('field');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

type SelectProps = Omit<JSX.SelectHTMLAttributes<HTMLSelectElement>, 'label' | 'value'> & {
  label: string;
  value?: string;
  options: [string, string][];
};

export function Select({ label, options, ...select }: SelectProps) {
  const id = useId('select');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} {...select}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

/** An API failure said plainly (role=alert announces it). */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof ApiError ? error.message : error instanceof Error ? error.message : String(error);
  const requestId = error instanceof ApiError ? error.problem.request_id : undefined;
  return (
    <div class="error" role="alert">
      <p>{text}</p>
      {requestId && <p class="hint">Request id: {requestId}</p>}
    </div>
  );
}

export function Status({ children }: { children: ComponentChildren }) {
  return (
    <p class="status" role="status">
      {children}
    </p>
  );
}

/** A button that asks first, in a modal dialog (focus stays inside; Escape cancels). */
export function ConfirmButton({
  label,
  accessibleLabel,
  question,
  confirmLabel,
  onConfirm,
  describedBy,
  class: className = 'danger',
}: {
  label: string;
  /** The name screen readers hear when the visible label alone is ambiguous ("Delete" → "Delete my voice"); it starts with `label`. */
  accessibleLabel?: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => Promise<void> | void;
  describedBy?: string;
  class?: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId('confirm');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      dialog.current?.close();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        class={className}
        aria-label={accessibleLabel}
        aria-describedby={describedBy}
        onClick={() => dialog.current?.showModal()}
      >
        {label}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId}>
        <p id={titleId}>{question}</p>
        <ErrorMessage error={error} />
        <div class="actions">
          <button type="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="button" class="danger" disabled={busy} onClick={confirm}>
            {confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}

export function Pager({
  page,
  count,
  pageSize,
  onPage,
}: {
  page: number;
  count: number;
  pageSize: number;
  onPage: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(count / pageSize));
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {pages}
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** Loads data for a component, again whenever `deps` change; `reload` refetches. */
export function useLoad<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: unknown[],
): { data: T | undefined; error: unknown; reload: () => void } {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    load(controller.signal).then(
      (value) => {
        setData(value);
        setError(null);
      },
      (failure) => {
        if (!controller.signal.aborted) setError(failure);
      },
    );
    return () => controller.abort();
  }, [...deps, round]);
  return { data, error, reload: () => setRound((value) => value + 1) };
}
