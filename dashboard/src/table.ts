/**
 * The tables beside the charts: a caption, optional column heads, and rows whose first cell heads the row
 * (screen readers announce it with each value). Text only: values never become markup.
 */
export interface TableRow {
  cells: string[];
  title?: string;
  className?: string;
}

export function fillTable(
  holder: HTMLElement,
  caption: string,
  head: string[] | null,
  rows: (string[] | TableRow)[],
): HTMLTableElement {
  const table = document.createElement('table');
  table.createCaption().textContent = caption;
  if (head) {
    const tr = table.createTHead().insertRow();
    for (const h of head) tr.append(cell('th', h, 'col'));
  }
  const tbody = table.createTBody();
  for (const row of rows) {
    const { cells, title, className } = Array.isArray(row) ? { cells: row } : row;
    const tr = tbody.insertRow();
    if (title) tr.title = title;
    if (className) tr.className = className;
    cells.forEach((v, j) => tr.append(j === 0 ? cell('th', v, 'row') : cell('td', v)));
  }
  holder.replaceChildren(table);
  return table;
}

/** A group too small to show: its name, and nothing else. */
export const suppressedRow = (name: string, columns: number) => [
  name,
  'suppressed',
  ...Array<string>(columns - 2).fill(''),
];

function cell(tag: 'th' | 'td', text: string, scope?: 'col' | 'row') {
  const el = document.createElement(tag);
  if (scope) el.scope = scope;
  el.textContent = text;
  return el;
}
