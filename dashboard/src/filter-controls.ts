/**
 * The data filters' controls, one select per filter of the query catalogue with its label, its "all"
 * option and its value labels. The site (the reader's scope) comes before the range, the value filters
 * after it; countries and sites are added from the data and the collector (main.ts).
 */
import { DIMENSIONS, FILTER_NAMES, FILTERS, type FilterInfo, type FilterName } from '@tlsrum/shared/query';

export function addFilterControls(form: HTMLFormElement): void {
  const range = form.querySelector('select[name=range]')!.closest('label')!;
  const metric = form.querySelector('select[name=metric]')!.closest('label')!;
  for (const name of FILTER_NAMES) {
    const f: FilterInfo = FILTERS[name];
    if (f.control === false) continue;
    const select = document.createElement('select');
    select.name = name;
    select.append(new Option(f.all, ''));
    for (const [value, label] of Object.entries(valueLabels(name))) select.append(new Option(label, value));
    const label = document.createElement('label');
    label.append(`${f.label} `, select);
    form.insertBefore(label, 'dimension' in f ? metric : range);
  }
}

/** The filter's own value labels, else its dimension's values as they are (none for open ones such as country). */
function valueLabels(name: FilterName): Readonly<Record<string, string>> {
  const f: FilterInfo = FILTERS[name];
  if (f.valueLabels) return f.valueLabels;
  const values = f.dimension ? DIMENSIONS[f.dimension].values : null;
  return Object.fromEntries((values ?? []).map((v) => [v, v]));
}
