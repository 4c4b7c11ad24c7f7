/**
 * The guides the dashboard links to, rendered from Markdown to a plain HTML page at build time, so a site
 * owner who clicks "how it works" reads a page, not Markdown source. Handles what the guides use: headings,
 * paragraphs, lists, tables, fenced and indented code, inline code, bold, italics and links. Text is
 * escaped before any markup is added, so a guide cannot inject markup of its own.
 */
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function inline(text: string): string {
  const code: string[] = [];
  let s = escape(text).replace(/`([^`]+)`/g, (_m, c: string) => `@@code${code.push(c) - 1}@@`);
  s = s
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[\s(])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>')
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, t: string, href: string) => {
      // Links between guides stay between the rendered pages; anything else points where it points.
      const local = /^[a-z-]+\.md(#.*)?$/.test(href) ? href.replace(/\.md/, '.html') : href;
      return `<a href="${local.replace(/"/g, '&quot;')}">${t}</a>`;
    });
  return s.replace(/@@code(\d+)@@/g, (_m, i: string) => `<code>${code[Number(i)]}</code>`);
}

const cells = (row: string) =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());

export function markdownToHtml(md: string): string {
  const lines = md.replace(/\r\n/g, '\n').split('\n');
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = /^```/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.startsWith('```')) body.push(lines[i++]!);
      i++;
      out.push(`<pre><code>${escape(body.join('\n'))}</code></pre>`);
      continue;
    }
    if (line.startsWith('    ')) {
      const body: string[] = [];
      while (i < lines.length && (lines[i]!.startsWith('    ') || lines[i]!.trim() === ''))
        body.push(lines[i++]!.slice(4));
      out.push(`<pre><code>${escape(body.join('\n').trimEnd())}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,4})\s+(.*)$/.exec(line);
    if (heading) {
      const n = heading[1]!.length;
      const id = heading[2]!
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '');
      out.push(`<h${n} id="${id}">${inline(heading[2]!)}</h${n}>`);
      i++;
      continue;
    }
    if (line.startsWith('|') && lines[i + 1]?.startsWith('|')) {
      const head = cells(line);
      i += 2;
      const rows: string[][] = [];
      while (i < lines.length && lines[i]!.startsWith('|')) rows.push(cells(lines[i++]!));
      out.push(
        `<table><thead><tr>${head.map((h) => `<th>${inline(h)}</th>`).join('')}</tr></thead><tbody>${rows
          .map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`)
          .join('')}</tbody></table>`,
      );
      continue;
    }
    const item = /^(\s*)([-*]|\d+\.)\s+/;
    if (item.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const items: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== '') {
        if (item.test(lines[i]!)) items.push(lines[i]!.replace(item, ''));
        else items[items.length - 1] += ` ${lines[i]!.trim()}`;
        i++;
      }
      const tag = ordered ? 'ol' : 'ul';
      out.push(`<${tag}>${items.map((t) => `<li>${inline(t)}</li>`).join('')}</${tag}>`);
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && !/^(#|```|\|)/.test(lines[i]!)) para.push(lines[i++]!.trim());
    out.push(`<p>${inline(para.join(' '))}</p>`);
  }
  return out.join('\n');
}

/** A whole page: the guide's first heading as its title, a link back to the dashboard. */
export function guidePage(md: string): string {
  const title = /^#\s+(.*)$/m.exec(md)?.[1] ?? 'tlsrum guide';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} — tlsrum</title>
<style>
body { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: #1d2330; max-width: 46rem; margin: 0 auto; padding: 1rem 1.25rem 3rem; line-height: 1.5; }
a { color: #2f5fb3; }
pre { background: #f6f7f9; border: 1px solid #dde1e8; border-radius: 4px; padding: 0.6rem 0.8rem; overflow-x: auto; }
code { font-family: ui-monospace, monospace; font-size: 0.9em; }
table { border-collapse: collapse; font-size: 0.92em; }
th, td { border: 1px solid #dde1e8; padding: 0.3rem 0.5rem; text-align: left; vertical-align: top; }
.back { font-size: 0.9em; }
</style>
</head>
<body>
<p class="back"><a href="../">← Back to the dashboard</a></p>
${markdownToHtml(md)}
</body>
</html>
`;
}
