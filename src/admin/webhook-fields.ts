/**
 * The admin CLI's reading of a webhook's flags (resources.ts uses it for the `webhooks` noun). Structural
 * types only, so the noun table can import this file without this file importing it back.
 */
import { UsageError } from '../agent/cli/cli-args.js';

interface Context {
  fields: Partial<Record<string, string | string[] | boolean>>;
}

/** One secret: `--secret` and `--secret-file` together would leave which one counts to chance. */
export function completeWebhook(_body: Record<string, unknown>, { fields }: Context): void {
  if (fields.secret !== undefined && fields['secret-file'] !== undefined)
    throw new UsageError('give the secret with --secret or --secret-file, not both');
}
