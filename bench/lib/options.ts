/** `npm run bench -- [--quick] [--only NAME[,NAME]]`. */
import { parseArgs } from 'node:util';

export interface BenchOptions {
  /** shorter runs: a smoke run, written to results.quick.json, never to the published results.json */
  quick: boolean;
  /** bench names to run; empty runs all */
  only: string[];
}

export function parseBenchArgs(argv: string[], names: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      only: { type: 'string', multiple: true },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(`Usage: npm run bench -- [--quick] [--only NAME]...\n\nBenches: ${names.join(', ')}`);
    process.exit(0);
  }
  const only = (values.only ?? [])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  const unknown = only.filter((n) => !names.includes(n));
  if (unknown.length) throw new Error(`unknown bench ${unknown.join(', ')}; known: ${names.join(', ')}`);
  return { quick: values.quick === true, only };
}
