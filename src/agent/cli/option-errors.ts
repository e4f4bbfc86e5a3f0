/**
 * node:util parseArgs' refusals in the CLIs' own words. Its unknown-option text advises putting the word after
 * `--` (with an unbalanced quote), which is never what a mistyped flag needs; its "ambiguous" text for
 * `--limit -1` takes three lines. Both CLIs (agent and admin) say these in one line instead, with the nearest
 * known option when the mistake is a typo.
 */

/** One line for a parseArgs error, or its own message for anything else. */
export function optionErrorText(error: unknown, known: readonly string[]): string {
  const { code, message } = error as { code?: string; message?: string };
  const text = String(message ?? error);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const option = /'([^']+)'/.exec(text)?.[1] ?? text;
    const nearest = nearestOption(option, known);
    return `unknown option '${option}'${nearest ? `; did you mean --${nearest}?` : '; see --help'}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const option = /'(--[^' ]+)/.exec(text)?.[1];
    if (option && /ambiguous/.test(text))
      return `${option} needs a value; one that starts with '-' is written ${option}=-1, say`;
    if (option) return `${option} needs a value`;
  }
  return text.split('\n')[0]!;
}

/** The known option within two edits of what was typed (`--fliter` is `--filter`), if exactly one is nearest. */
function nearestOption(typed: string, known: readonly string[]): string | undefined {
  const word = typed.replace(/^-+/, '').split('=')[0]!;
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const d = editDistance(word, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/** Levenshtein distance, with a swap of two neighbouring letters counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  return rows[a.length]![b.length]!;
}
