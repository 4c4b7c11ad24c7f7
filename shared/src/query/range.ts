/**
 * The whole units a time range is read in. The rollups hold whole hours, and a range of a week or more is
 * read in whole days (the daily cuts alone answer it), so the collector widens a range outward to those
 * units and its answer reports the range it covers. The dashboard asks for that widened range itself: every
 * panel, the what-if too, then covers the same span, and the same question is asked all hour (or all day)
 * long, so an answer kept by the collector serves every viewer of it.
 */
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** Ranges at least this long are widened to whole days, shorter ones to whole hours. */
export const WHOLE_DAYS_FROM_MS = 7 * DAY_MS;

/** [from, to) widened outward to whole hours, or to whole days from a week on. */
export function widenedRange(range: { from: number; to: number }): { from: number; to: number } {
  const unit = range.to - range.from >= WHOLE_DAYS_FROM_MS ? DAY_MS : HOUR_MS;
  return { from: Math.floor(range.from / unit) * unit, to: Math.ceil(range.to / unit) * unit };
}
