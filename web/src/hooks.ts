import type { TargetedEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { get, type Page } from './api';

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

/** One page of a paged list (`path` answers a Page); the page number is the component's, `pager` the <Pager>'s props. */
export function usePagedLoad<T>(path: string, pageSize: number) {
  const [page, setPage] = useState(1);
  const list = useLoad((signal) => get<Page<T>>(`${path}?page=${page}&page_size=${pageSize}`, signal), [path, page]);
  return { ...list, pager: { page, count: list.data?.count ?? 0, pageSize, onPage: setPage } };
}

/**
 * Something a person starts (a submit, a confirmation): `busy` while it runs; its failure stays in `error`, for an
 * <ErrorMessage>, until the next run or `clear()`.
 */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (...args: A) => {
    setBusy(true);
    setError(null);
    try {
      await action(...args);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, clear: () => setError(null) };
}

/** useAction for a form: its `onSubmit` keeps the page (no native submit) and hands the action the form. */
export function useSubmit(action: (form: HTMLFormElement) => Promise<void>) {
  const { run, ...state } = useAction(action);
  const onSubmit = (event: TargetedEvent<HTMLFormElement>) => {
    event.preventDefault();
    void run(event.currentTarget);
  };
  return { onSubmit, ...state };
}
