import type { Context } from 'koa';
import type { Model, QueryBuilder } from 'objection';
import { z } from 'zod';

/** `?page=&page_size=` as API.md defines them; anything else is a 400. */
export const PageQuery = z.object({
  page: z.coerce
    .number({ error: 'Must be an integer.' })
    .int('Must be an integer.')
    .min(1, 'Must be at least 1.')
    .default(1)
    .meta({ description: 'The page to return, counted from 1' }),
  page_size: z.coerce
    .number({ error: 'Must be an integer.' })
    .int('Must be an integer.')
    .min(1, 'Must be between 1 and 100.')
    .max(100, 'Must be between 1 and 100.')
    .default(20)
    .meta({ description: 'Items per page, 1-100' }),
});
export type PageQuery = z.output<typeof PageQuery>;

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int().meta({ description: 'Items on all pages together', example: 42 }),
    next: z.string().nullable().meta({ description: 'Full URL of the next page; null on the last page' }),
    previous: z.string().nullable().meta({ description: 'Full URL of the previous page; null on the first page' }),
    results: z.array(item).meta({ description: 'The items of this page' }),
  });
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** Builds the page envelope; next/previous are full URLs on PUBLIC_URL keeping the other query parameters. */
export function presentPage<T>(ctx: Context, publicUrl: string, page: PageQuery, count: number, results: T[]): Page<T> {
  const link = (target: number) => {
    const url = new URL(`${publicUrl}${ctx.path}`);
    for (const [key, value] of Object.entries(ctx.query)) {
      if (typeof value === 'string') url.searchParams.set(key, value);
    }
    url.searchParams.set('page', String(target));
    url.searchParams.set('page_size', String(page.page_size));
    return url.toString();
  };
  const lastPage = Math.max(1, Math.ceil(count / page.page_size));
  return {
    count,
    next: page.page < lastPage ? link(page.page + 1) : null,
    previous: page.page > 1 ? link(Math.min(page.page - 1, lastPage)) : null,
    results,
  };
}

export const offsetOf = (page: PageQuery) => (page.page - 1) * page.page_size;

/** API.md: lists are newest first unless said otherwise; the id orders rows created at the same instant. */
export const NEWEST_FIRST: { column: string; order: 'desc' }[] = [
  { column: 'created_at', order: 'desc' },
  { column: 'id', order: 'desc' },
];

/**
 * The rows of one page of an ordered list, and how many rows all its pages
 * hold. `counted`, when given, is the same list without the columns that
 * cost a subquery a row, so that counting does not compute them.
 */
export function pageOf<M extends Model>(
  list: QueryBuilder<M, M[]>,
  page: PageQuery,
  counted: QueryBuilder<M, M[]> = list,
): Promise<[number, M[]]> {
  return Promise.all([counted.resultSize(), list.clone().offset(offsetOf(page)).limit(page.page_size)]);
}
