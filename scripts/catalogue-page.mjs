// docs/catalogue.md from the shipped libraries (apps/joinery/lib/*.json): for each part its
// description, picture (docs/img/catalogue-<part>.png, scripts/render-catalogue.mjs), what it is
// made of, its parameters (default, unit, meaning), its ports and the bundled examples using it.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const text = (v) => (typeof v === 'string' ? v : JSON.stringify(v));
const cell = (s) => String(s).replace(/\|/g, '\\|');
const prose = (s) => String(s).replace(/\*/g, '\\*');  // formulas: a*b is not emphasis
const code = (s) => '`' + String(s).replace(/`/g, '') + '`';
const libraryOrder = ['links', 'planar', 'spatial', 'vehicles'];

/// Bundled scenes that include joinery:LIB (directly or through a library that includes it) and
/// use PART: { part: [relative paths] }.
function examplesUsing(source) {
  const uses = {};
  for (const dir of ['examples/library', 'examples/scenes']) {
    for (const f of readdirSync(join(source, dir)).filter((n) => n.endsWith('.json')).sort()) {
      const body = readFileSync(join(source, dir, f), 'utf8');
      if (!/"joinery:/.test(body)) continue;
      for (const m of body.matchAll(/"component":\s*"([A-Za-z0-9_]+)"/g)) {
        (uses[m[1]] ||= new Set()).add(`${dir}/${f}`);
      }
    }
  }
  return uses;
}

/// Parts used inside other parts (four_bar uses crank and rod): { part: [users] }.
function partsUsing(libs) {
  const users = {};
  for (const { doc } of libs)
    for (const [name, c] of Object.entries(doc.components))
      for (const i of c.instances || []) if (!(users[i.component] ||= []).includes(name)) users[i.component].push(name);
  return users;
}

function madeOf(c) {
  const out = [];
  for (const kind of ['instances', 'bodies', 'joints', 'forces'])
    for (const e of c[kind] || []) out.push(`${code(e.name)} (${e.component ? 'part ' + code(e.component) : e.type})`);
  return out.join(', ');
}

function portRow(name, p) {
  if (p.port) return `| ${code(name)} | re-exports ${code(p.port)} |`;
  return `| ${code(name)} | body ${code(p.body)} at ${code('(' + (p.point || [0, 0]).map(text).join(', ') + ')')} |`;
}

function partSection(source, lib, name, c, examples, users) {
  const lines = [`### \`${name}\``, '', prose(c.description || ''), ''];
  const img = `img/catalogue-${name}.png`;
  if (existsSync(join(source, 'docs', img)))
    lines.push(`![joinery:${lib} ${name} with its defaults, drawn by joinery view](${img})`, '');
  lines.push(`Made of: ${madeOf(c)}.`, '');
  lines.push('| parameter | default | unit | meaning |', '|---|---|---|---|');
  for (const [p, v] of Object.entries(c.parameters || {}))
    lines.push(`| ${code(p)} | ${code(text(v))} | ${cell((c.units || {})[p] || '-')} | ${prose(cell((c.descriptions || {})[p] || ''))} |`);
  lines.push('', '| port | where |', '|---|---|');
  for (const [p, v] of Object.entries(c.ports || {})) lines.push(portRow(p, v));
  const ex = [...(examples[name] || [])].map((e) => `[${e.replace(/^examples\//, '')}](../${e})`);
  const inside = (users[name] || []).map((u) => code(u));
  lines.push('', `Used in: ${[...ex, ...inside.map((u) => 'part ' + u)].join(', ') || '-'}.`, '');
  return lines;
}

export function writeCatalogue(source) {
  const libDir = join(source, 'apps', 'joinery', 'lib');
  const names = readdirSync(libDir).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, ''));
  names.sort((a, b) => (libraryOrder.indexOf(a) + 1 || 99) - (libraryOrder.indexOf(b) + 1 || 99) || a.localeCompare(b));
  const libs = names.map((n) => ({ name: n, doc: JSON.parse(readFileSync(join(libDir, `${n}.json`), 'utf8')) }));
  const examples = examplesUsing(source), users = partsUsing(libs);
  const head = readFileSync(join(source, 'scripts', 'catalogue-intro.md'), 'utf8').trimEnd();
  const out = [head, ''];
  for (const { name, doc } of libs) {
    out.push(`## \`joinery:${name}\``, '', prose(doc.description || ''), '');
    for (const [part, c] of Object.entries(doc.components)) out.push(...partSection(source, name, part, c, examples, users));
  }
  writeFileSync(join(source, 'docs', 'catalogue.md'), out.join('\n').replace(/\n{3,}/g, '\n\n') + '\n');
  console.log('wrote docs/catalogue.md');
}
