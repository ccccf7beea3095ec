import type { ComponentChildren } from 'preact';

/** A column of a RecordTable: its heading, what a record shows in it, and the cell's class. */
interface Column<T> {
  title: string;
  cell: (record: T) => ComponentChildren;
  class?: string;
}

/**
 * Records as a table that becomes cards on a phone (table.stack in styles.css): the first column heads each row,
 * every other cell is named by its column (data-label), and the last holds the record's actions. With no records,
 * nothing.
 */
export function RecordTable<T extends { id: string }>({
  records,
  columns,
  actions,
}: {
  records: T[] | undefined;
  columns: [Column<T>, ...Column<T>[]];
  actions: (record: T) => ComponentChildren;
}) {
  if (!records?.length) return null;
  const [head, ...rest] = columns;
  return (
    <div class="table-wrap">
      <table class="stack">
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.title} scope="col">
                {column.title}
              </th>
            ))}
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {records.map((record) => (
            <tr key={record.id}>
              <th scope="row">{head.cell(record)}</th>
              {rest.map((column) => (
                <td key={column.title} class={column.class} data-label={column.title}>
                  {column.cell(record)}
                </td>
              ))}
              <td>{actions(record)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Records as a list of cards (.entries in styles.css); `children` draws a record's card. */
export function EntryList<T extends { id: string }>({
  records,
  children,
}: {
  records: T[] | undefined;
  children: (record: T) => ComponentChildren;
}) {
  return (
    <ul class="entries">
      {records?.map((record) => (
        <li key={record.id} class="entry">
          {children(record)}
        </li>
      ))}
    </ul>
  );
}

/** The usual card of an EntryList: the record's name as a heading, what `children` adds, a line of facts, its actions. */
export function EntryCard({
  title,
  meta,
  actions,
  children,
}: {
  title: string;
  meta: ComponentChildren;
  actions: ComponentChildren;
  children?: ComponentChildren;
}) {
  return (
    <>
      <h2 class="entry-title">{title}</h2>
      {children}
      <p class="meta">{meta}</p>
      <div class="actions">{actions}</div>
    </>
  );
}
