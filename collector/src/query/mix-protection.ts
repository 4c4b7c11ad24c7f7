/**
 * Which shares of a handshake cell's mixes may be shown.
 *
 * A share times the cell's records is the records of a sub-group (the cell's TLS 1.2 connections, its
 * 0-RTT ones), and so is any sum or difference of such products and the cell's own records. The cell is
 * split into joint cells, one per combination of the joint columns (protocol × TLS version × class ×
 * resumed; `stack` and `mode` are computed from them), each shown or hidden by the rules of any cell. A
 * group of people that a query could ask about inside the cell — one value of any of those six columns,
 * or several at once — is *protected* when every one of its joint cells is hidden: it may be a group of
 * too few people. No protected group's records may follow from what the cell shows.
 *
 * Over the cell's non-empty joint cells, a share is the indicator of the joint cells holding its value,
 * and the cell's records the indicator of all of them. The records of a group follow from the shown
 * figures exactly when its indicator is a linear combination of theirs (with what anyone can know of
 * which combinations are empty; rounding to four decimals aside). So the shares are taken largest first,
 * and one is shown only if, with it, no protected group's indicator lies in the span of the shown ones.
 * The shown shares are exact marginals: every joint cell holding the value counts, hidden ones too — the
 * number a query adding that column would show for the group (which holds a shown joint cell, so has
 * enough people and sites).
 *
 * Linear algebra over the integers modulo a prime: every minor of a 0/1 matrix of this size is far below
 * it, so a rank there is the rank over the rationals, and no rounding can hide a combination.
 */
import { DIMENSIONS, MIX_DIMENSIONS } from '@tlsrum/shared/query';

/** The columns a joint cell is one value of each, in the order of a combination's number. */
export const JOINT_COLUMNS = ['protocol', 'tlsVersion', 'handshakeClass', 'resumed'] as const;
type JointColumn = (typeof JOINT_COLUMNS)[number];
const JOINT_VALUES: readonly (readonly string[])[] = JOINT_COLUMNS.map((c) => DIMENSIONS[c].values);

/** The columns a query can name that a joint cell determines: the joint columns, then those computed from them. */
const ATTRIBUTES = [...JOINT_COLUMNS, 'stack', 'mode'] as const;
type Attribute = (typeof ATTRIBUTES)[number];

/** `stack` and `mode` as the store computes them (dimensions.ts; a test ties the two). */
function derivedAttributes(j: Record<JointColumn, string>): { stack: string; mode: string } {
  const stack =
    j.protocol === 'h3' ? 'h3' : j.tlsVersion === '1.3' ? 'TLS 1.3' : j.tlsVersion === '1.2' ? 'TLS 1.2' : 'unknown';
  const mode =
    j.handshakeClass === '0rtt'
      ? '0-RTT'
      : j.resumed === 'true'
        ? 'resumed'
        : j.resumed === 'false'
          ? 'full'
          : 'unknown';
  return { stack, mode };
}

/** Every combination's six attribute values, by its number (mixed radix over JOINT_VALUES, the first column most significant). */
const COMBOS: readonly (readonly string[])[] = (() => {
  const out: string[][] = [];
  const walk = (at: number, picked: string[]) => {
    if (at === JOINT_COLUMNS.length) {
      const j = Object.fromEntries(JOINT_COLUMNS.map((c, i) => [c, picked[i]!])) as Record<JointColumn, string>;
      const d = derivedAttributes(j);
      out.push(ATTRIBUTES.map((a) => (a === 'stack' ? d.stack : a === 'mode' ? d.mode : j[a])));
      return;
    }
    for (const v of JOINT_VALUES[at]!) walk(at + 1, [...picked, v]);
  };
  walk(0, []);
  return out;
})();

/** A combination's attributes by its number (the tests read combinations with it). */
export function comboValues(combo: number): Record<Attribute, string> | null {
  const values = COMBOS[combo];
  return values ? (Object.fromEntries(ATTRIBUTES.map((a, i) => [a, values[i]!])) as Record<Attribute, string>) : null;
}

/**
 * SQL: a joint row's combination number from its joint columns' expressions; -1 if a value is outside the
 * catalogue (then nothing of the cell's mixes is shown).
 */
export function jointComboSql(expr: (c: JointColumn) => string): string {
  const index = JOINT_COLUMNS.map(
    (c, i) => `indexOf([${JOINT_VALUES[i]!.map((v) => `'${v}'`).join(', ')}], ${expr(c)})`,
  );
  let number = `(${index[0]} - 1)`;
  for (let i = 1; i < index.length; i++) number = `(${number} * ${JOINT_VALUES[i]!.length} + ${index[i]} - 1)`;
  return `if(${index.map((x) => `${x} = 0`).join(' OR ')}, -1, toInt32(${number}))`;
}

/** Each attribute's values, and each combination's value of each attribute by its index there. */
const ATTRIBUTE_VALUES = ATTRIBUTES.map((_, a) => [...new Set(COMBOS.map((c) => c[a]!))]);
const MAX_VALUES = Math.max(...ATTRIBUTE_VALUES.map((v) => v.length));
const COMBO_VALUE = Uint8Array.from(COMBOS.flatMap((c) => c.map((v, a) => ATTRIBUTE_VALUES[a]!.indexOf(v))));

/** Every mix's every value, in MIX_DIMENSIONS' order: what `protectMix` answers for. */
export const MIX_VALUES = MIX_DIMENSIONS.flatMap((mix) =>
  DIMENSIONS[mix].values.map((value: string) => {
    const attribute = ATTRIBUTES.indexOf(mix);
    return { mix, value, attribute, index: ATTRIBUTE_VALUES[attribute]!.indexOf(value) };
  }),
);

/** A cell's joint cells as its mixes' protection needs them. */
export interface JointCells {
  /** The numbers of its non-empty joint cells (jointComboSql)… */
  combos: readonly number[];
  /** …and of those hidden as a cell of their own would be. */
  hidden: readonly number[];
  /** Per mix value (MIX_VALUES' order): the records of every joint cell holding it. */
  records: readonly number[];
}

const P = 67_108_859; // a prime under 2^26: a product of two residues (under 2^52) is exact in a double
const INVERSE_P = 1 / P;
/** x mod P for 0 ≤ x < 2^52, without `%` (a call into the runtime for doubles): the quotient by multiplication, then corrected by one. */
function mod(x: number): number {
  const r = x - Math.floor(x * INVERSE_P) * P;
  return r < 0 ? r + P : r >= P ? r - P : r;
}
function inverse(a: number): number {
  let [r0, r1, s0, s1] = [P, a, 0, 1];
  while (r1 !== 0) {
    const q = Math.floor(r0 / r1);
    [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
  }
  return ((s0 % P) + P) % P;
}
/** Row `to` of `m` minus f times row `from` of `b`, in place (rows of `len` residues). */
function subtract(m: Float64Array, to: number, f: number, b: Float64Array, from: number, len: number): void {
  for (let k = 0; k < len; k++) {
    const x = b[from + k]!;
    if (x === 0) continue;
    const r = m[to + k]! - mod(f * x);
    m[to + k] = r < 0 ? r + P : r;
  }
}
/** Row `at` of `m` times the inverse of its entry `pivot`, in place: 1 there. */
function normalise(m: Float64Array, at: number, pivot: number, len: number): void {
  const scale = inverse(m[at + pivot]!);
  for (let k = 0; k < len; k++) m[at + k] = mod(m[at + k]! * scale);
}

/** Scratch space, grown to the largest cell seen: a cell's work allocates nothing else (an answer may hold thousands). */
const scratch = {
  holding: new Uint32Array(0),
  shownCells: new Uint32Array(0),
  order: new Int32Array(0),
  rows: new Float64Array(0),
  part: new Float64Array(0),
  v: new Float64Array(0),
  groups: new Float64Array(0),
  bySubset: new Uint32Array(0),
};
function room<K extends keyof typeof scratch>(key: K, size: number): (typeof scratch)[K] {
  if (scratch[key].length < size)
    (scratch[key] as unknown) = new (scratch[key].constructor as new (n: number) => unknown)(size);
  return scratch[key];
}

/**
 * Per mix value (MIX_VALUES' order), whether its share may be shown. A value with no records shows as 0
 * (its indicator is empty: it tells nothing of any group).
 *
 * A protected group is zero on every shown joint cell, so it lies in the span of the shown figures exactly
 * when it lies in the span's part that is zero there: the *hidden part*. Adding a share grows that part only
 * when the share, on the shown joint cells, already follows from the shown figures (the vector it then adds
 * is the share less that combination); only then can a protected group fall in, and only then are they
 * listed and tested. The shown figures are kept in echelon form on the shown joint cells, the hidden part
 * on the hidden ones.
 */
export function protectMix(joint: JointCells): boolean[] {
  const { combos, hidden, records } = joint;
  const shown = MIX_VALUES.map(() => true);
  if (hidden.length === 0) return shown;
  if (combos.some((c) => !COMBOS[c])) return MIX_VALUES.map((_, i) => !(records[i]! > 0));
  const n = combos.length;
  const A = ATTRIBUTES.length;
  const words = (n + 31) >> 5;
  // Per attribute and value, the joint cells holding it, as a bit set over the cell's joint cells; and the
  // joint cells in two runs, the shown ones first (a vector's entries are in this order).
  const holding = room('holding', A * MAX_VALUES * words).fill(0, 0, A * MAX_VALUES * words);
  const shownCells = room('shownCells', words).fill(0, 0, words);
  const order = room('order', n);
  let s = 0;
  for (let k = 0; k < n; k++) {
    const c = combos[k]!;
    for (let a = 0; a < A; a++)
      holding[(a * MAX_VALUES + COMBO_VALUE[c * A + a]!) * words + (k >> 5)]! |= 1 << (k & 31);
    if (!hidden.includes(c)) {
      shownCells[k >> 5]! |= 1 << (k & 31);
      order[s++] = k;
    }
  }
  // Entries 0 … s − 1: the shown joint cells; s … n − 1: the h hidden ones.
  for (let k = 0, e = s; k < n; k++) if (!(shownCells[k >> 5]! & (1 << (k & 31)))) order[e++] = k;
  const h = n - s;

  const most = MIX_VALUES.length + 1;
  const rows = room('rows', most * n); // the shown figures, a pivot on a shown entry each
  const pivots: number[] = [];
  const part = room('part', most * h); // the hidden part, over the hidden entries
  const partPivots: number[] = [];
  let groups: Float64Array | null = null; // the protected groups over the hidden entries, reduced against the hidden part
  let g = 0;
  const v = room('v', n);

  /** Adds v (filled in) to the shown figures unless a protected group would follow; false: it would. */
  const show = (): boolean => {
    for (let r = 0; r < pivots.length; r++) if (v[pivots[r]!] !== 0) subtract(v, 0, v[pivots[r]!]!, rows, r * n, n);
    let p = 0;
    while (p < s && v[p] === 0) p++;
    if (p < s) {
      rows.set(v.subarray(0, n), pivots.length * n);
      normalise(rows, pivots.length * n, p, n);
      pivots.push(p);
      return true;
    }
    // Zero on the shown joint cells: v's hidden entries (from s on) join the hidden part.
    for (let r = 0; r < partPivots.length; r++)
      if (v[s + partPivots[r]!] !== 0) subtract(v, s, v[s + partPivots[r]!]!, part, r * h, h);
    let pivot = 0;
    while (pivot < h && v[s + pivot] === 0) pivot++;
    if (pivot === h) return true; // v already follows from the shown figures: showing it tells nothing more
    if (!groups) {
      g = protectedGroups(combos, hidden, holding, shownCells, words, order, s);
      groups = scratch.groups;
      for (let at = 0; at < g * h; at += h)
        for (let r = 0; r < partPivots.length; r++)
          if (groups[at + partPivots[r]!] !== 0) subtract(groups, at, groups[at + partPivots[r]!]!, part, r * h, h);
    }
    // With w (v's hidden entries), a reduced group falls in the hidden part exactly when it is a multiple of w.
    const scale = inverse(v[s + pivot]!);
    for (let at = 0; at < g * h; at += h) {
      if (groups[at + pivot] === 0) continue;
      const f = mod(groups[at + pivot]! * scale);
      let multiple = true;
      for (let k = 0; k < h && multiple; k++) if (groups[at + k] !== mod(f * v[s + k]!)) multiple = false;
      if (multiple) return false;
    }
    const row = partPivots.length * h;
    part.set(v.subarray(s, n), row);
    normalise(part, row, pivot, h);
    partPivots.push(pivot);
    for (let at = 0; at < g * h; at += h)
      if (groups[at + pivot] !== 0) subtract(groups, at, groups[at + pivot]!, part, row, h);
    return true;
  };

  // The cell's records (every joint cell), then the shares, largest first (ties: MIX_VALUES' order).
  v.fill(1, 0, n);
  show();
  const byRecords = MIX_VALUES.map((_, i) => i)
    .filter((i) => records[i]! > 0 && MIX_VALUES[i]!.index >= 0)
    .sort((a, b) => records[b]! - records[a]! || a - b);
  for (const i of byRecords) {
    const set = (MIX_VALUES[i]!.attribute * MAX_VALUES + MIX_VALUES[i]!.index) * words;
    for (let e = 0; e < n; e++) v[e] = holding[set + (order[e]! >> 5)]! & (1 << (order[e]! & 31)) ? 1 : 0;
    if (!show()) shown[i] = false;
  }
  return shown;
}

/**
 * The protected groups, into scratch.groups as vectors over the hidden joint cells (`order` from entry s
 * on); returns how many. For each hidden joint cell, every group fixing some of its attributes (built from
 * the one fixing one fewer), kept when all its joint cells are hidden; each once.
 */
function protectedGroups(
  combos: readonly number[],
  hidden: readonly number[],
  holding: Uint32Array,
  shownCells: Uint32Array,
  words: number,
  order: Int32Array,
  s: number,
): number {
  const n = combos.length;
  const A = ATTRIBUTES.length;
  const subsets = 1 << A;
  if (s <= 32 && n - s <= 32) return protectedGroupsSmall(combos, hidden, order, s);
  const bySubset = room('bySubset', subsets * words);
  // A group is listed from the first hidden joint cell in it (any of its cells, fixing the same attributes,
  // gives it) and from the fewest attributes fixed (a set no parent has); the rest, few, by a linear search
  // on its bit set (one number up to 53 joint cells, text beyond).
  const done = new Uint32Array(words);
  const keys: (number | string)[] = [];
  const sets: Uint32Array[] = [];
  // Fixing nothing: the whole cell (shown: a group with the same joint cells is never listed).
  for (let w = 0; w < words; w++) bySubset[w] = w < words - 1 || n % 32 === 0 ? 0xffffffff : 2 ** (n % 32) - 1;
  for (const c of hidden) {
    for (let sub = 1; sub < subsets; sub++) {
      const low = 31 - Math.clz32(sub & -sub);
      const at = sub * words;
      const first = (sub & (sub - 1)) * words;
      const fix = (low * MAX_VALUES + COMBO_VALUE[c * A + low]!) * words;
      let skip = false;
      for (let w = 0; w < words; w++) {
        const set = (bySubset[first + w]! & holding[fix + w]!) >>> 0;
        bySubset[at + w] = set;
        if (set & (shownCells[w]! | done[w]!)) skip = true;
      }
      if (skip) continue;
      for (let rest = sub; rest && !skip; rest &= rest - 1) {
        const parent = (sub ^ (rest & -rest)) * words;
        let same = true;
        for (let w = 0; w < words && same; w++) same = bySubset[parent + w] === bySubset[at + w];
        skip = same;
      }
      if (skip) continue;
      const key =
        n <= 53
          ? bySubset[at]! + (words > 1 ? bySubset[at + 1]! * 2 ** 32 : 0)
          : bySubset.slice(at, at + words).join(',');
      if (keys.includes(key)) continue;
      keys.push(key);
      sets.push(bySubset.slice(at, at + words));
    }
    const k = combos.indexOf(c);
    done[k >> 5]! |= 1 << (k & 31);
  }
  const h = n - s;
  const groups = room('groups', sets.length * h).fill(0, 0, sets.length * h);
  let at = 0;
  for (const set of sets) {
    for (let e = 0; e < h; e++) if (set[order[s + e]! >> 5]! & (1 << (order[s + e]! & 31))) groups[at + e] = 1;
    at += h;
  }
  return sets.length;
}

/** protectedGroupsSmall's fixed-size scratch space. */
const SMALL = {
  hiddenBits: new Uint32Array(ATTRIBUTES.length * MAX_VALUES),
  shownBits: new Uint32Array(ATTRIBUTES.length * MAX_VALUES),
  fixHidden: new Uint32Array(ATTRIBUTES.length),
  fixShown: new Uint32Array(ATTRIBUTES.length),
};

/**
 * protectedGroups for a cell of at most 32 shown and 32 hidden joint cells: a set is two numbers, its hidden
 * joint cells and its shown ones (bit e of the first: entry s + e; of the second: entry e); a listed group,
 * having no shown one, is its first number alone.
 */
function protectedGroupsSmall(
  combos: readonly number[],
  hidden: readonly number[],
  order: Int32Array,
  s: number,
): number {
  const A = ATTRIBUTES.length;
  const subsets = 1 << A;
  const n = combos.length;
  const h = n - s;
  // Per attribute and value, the joint cells holding it, as the two numbers.
  const hiddenBits = SMALL.hiddenBits.fill(0);
  const shownBits = SMALL.shownBits.fill(0);
  for (let e = 0; e < n; e++) {
    const c = combos[order[e]!]!;
    for (let a = 0; a < A; a++) {
      const at = a * MAX_VALUES + COMBO_VALUE[c * A + a]!;
      if (e < s) shownBits[at]! |= 1 << e;
      else hiddenBits[at]! |= 1 << (e - s);
    }
  }
  const byHidden = room('bySubset', 2 * subsets);
  const { fixHidden, fixShown } = SMALL;
  const sets: number[] = [];
  let done = 0;
  for (const c of hidden) {
    for (let a = 0; a < A; a++) {
      fixHidden[a] = hiddenBits[a * MAX_VALUES + COMBO_VALUE[c * A + a]!]!;
      fixShown[a] = shownBits[a * MAX_VALUES + COMBO_VALUE[c * A + a]!]!;
    }
    // Fixing nothing: the whole cell (shown: a group with the same joint cells is never listed).
    byHidden[0] = 2 ** h - 1;
    byHidden[subsets] = 2 ** s - 1;
    for (let sub = 1; sub < subsets; sub++) {
      const low = 31 - Math.clz32(sub & -sub);
      const parent = sub & (sub - 1);
      const set = (byHidden[parent]! & fixHidden[low]!) >>> 0;
      const shown = (byHidden[subsets + parent]! & fixShown[low]!) >>> 0;
      byHidden[sub] = set;
      byHidden[subsets + sub] = shown;
      if (shown !== 0 || set & done) continue;
      // Listed from the fewest attributes fixed (no parent has the same set) and from its first hidden joint cell.
      let fewest = true;
      for (let rest = sub; rest && fewest; rest &= rest - 1) {
        const other = sub ^ (rest & -rest);
        fewest = byHidden[other] !== set || byHidden[subsets + other] !== 0;
      }
      if (fewest && !sets.includes(set)) sets.push(set);
    }
    done |= 2 ** (order.indexOf(combos.indexOf(c), s) - s); // its entry among the hidden ones
  }
  const groups = room('groups', sets.length * h).fill(0, 0, sets.length * h);
  for (let i = 0, at = 0; i < sets.length; i++, at += h)
    for (let e = 0; e < h; e++) if (sets[i]! & (1 << e)) groups[at + e] = 1;
  return sets.length;
}
