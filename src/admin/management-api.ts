/**
 * The management API calls the admin CLI makes, over the shared ControllerClient (its TLS trust, plain-http
 * guard and error envelopes). Reads are retried when the controller is briefly unreachable; writes never are,
 * so a create whose answer was lost is not sent twice.
 */
import type { CreatedEntity, Envelope } from '../api/envelopes.js';
import { MANAGEMENT_API_PREFIX } from '../api/paths.js';
import type { ControllerClient, RequestOptions } from '../controller-client/controller-client.js';
import { isControllerError } from '../controller-client/controller-error.js';
import { CliError } from '../agent/cli/cli-errors.js';
import type { Entity } from './resources.js';

export interface ListQuery {
  filter?: string;
  limit?: number;
  offset?: number;
}

const path = (...parts: string[]) => `/${parts.map(encodeURIComponent).join('/')}`;

/** A string literal of the filter grammar: double quotes, with its few escapes. */
export function filterString(value: string): string {
  const escaped = value.replace(
    /[\\"\f\n\r\t]/g,
    (c) => `\\${{ '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't' }[c] ?? c}`,
  );
  return `"${escaped}"`;
}

export class ManagementApi {
  constructor(readonly client: ControllerClient) {}

  private call<T>(method: string, url: string, options: RequestOptions = {}): Promise<Envelope<T>> {
    return this.client.requestEnvelope<T>(method, url, {
      prefix: MANAGEMENT_API_PREFIX,
      retry: method === 'GET',
      ...options,
    });
  }

  list(collection: string, query: ListQuery = {}): Promise<Envelope<Entity[]>> {
    const q = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
    return this.call<Entity[]>('GET', path(collection), { query: q as Record<string, string | number> });
  }

  async get(collection: string, id: string): Promise<Entity> {
    return (await this.call<Entity>('GET', path(collection, id))).data;
  }

  /** One entity by id, else by its (unique) name. */
  async resolve(collection: string, idOrName: string, singular: string): Promise<Entity> {
    try {
      return await this.get(collection, idOrName);
    } catch (error) {
      if (!isControllerError(error, 'NOT_FOUND')) throw error;
    }
    const named = await this.list(collection, { filter: `name = ${filterString(idOrName)}`, limit: 1 });
    const found = named.data[0];
    if (!found) throw new CliError(`no ${singular} with the id or name '${idOrName}'`);
    return found;
  }

  async create(collection: string, body: unknown): Promise<CreatedEntity & Record<string, unknown>> {
    return (await this.call<CreatedEntity & Record<string, unknown>>('POST', path(collection), { body }))
      .data;
  }

  async patch(collection: string, id: string, body: unknown): Promise<void> {
    await this.call('PATCH', path(collection, id), { body });
  }

  async delete(collection: string, id: string, cascade: boolean): Promise<void> {
    await this.call('DELETE', path(collection, id), cascade ? { query: { cascade: 'true' } } : {});
  }

  /** GET a sub-resource (`posture-check-exceptions/<id>/history`): the whole envelope, for `--json`. */
  read<T>(parts: string[], query: ListQuery = {}): Promise<Envelope<T>> {
    const q = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
    return this.call<T>('GET', path(...parts), { query: q as Record<string, string | number> });
  }

  /** POST to a sub-resource (`edge-routers/<id>/re-enroll`, `enrollments/<id>/refresh`). */
  async post<T = Record<string, unknown>>(parts: string[], body: unknown = {}): Promise<T> {
    return (await this.call<T>('POST', path(...parts), { body })).data;
  }
}
