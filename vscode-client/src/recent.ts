/**
 * Recent searches, most recent first and without repeats, so the Search box offers the queries a
 * user runs again and again. Pure, unit-tested; the extension keeps the list in workspace state.
 */

export const MAX_RECENT_QUERIES = 15;

/** `recent` with `query` moved (or added) to the front, capped at `max`. */
export function remember(recent: readonly string[], query: string, max = MAX_RECENT_QUERIES): string[] {
  const trimmed = query.trim();
  if (!trimmed) {
    return [...recent];
  }
  return [trimmed, ...recent.filter((item) => item !== trimmed)].slice(0, max);
}
