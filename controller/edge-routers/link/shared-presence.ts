/**
 * Router presence across controller instances on one PostgreSQL database. A router links to one instance,
 * but the console and agents may ask any: each instance writes the routers linked to it into
 * `router_presence` every PRESENCE_BEAT_MS (removing those whose link ended) and reads back every row seen
 * within PRESENCE_TTL_MS. A router is online when linked here or, by that read, at another instance. A
 * router whose process dies drops out within about two beats; one whose instance dies, within the TTL.
 */
import type pg from 'pg';
import type { ControllerContext } from '../../platform/context.js';
import type { RouterPresence } from '../edge-router-service.js';
import type { RouterLink } from './link-server.js';

export const PRESENCE_BEAT_MS = 1_000;
/** A row older than this belongs to an instance that stopped beating (crashed, or cut off the database). */
export const PRESENCE_TTL_MS = 5_000;

export class SharedRouterPresence implements RouterPresence {
  private elsewhere = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private beating: Promise<void> | undefined;
  private lastError = '';

  constructor(
    private readonly pool: pg.Pool,
    private readonly instanceId: string,
    private readonly local: RouterPresence & { all(): RouterLink[] },
    private readonly ctx: ControllerContext,
  ) {
    this.timer = setInterval(() => void this.beat(), PRESENCE_BEAT_MS);
    this.timer.unref();
    void this.beat();
  }

  isOnline(edgeRouterId: string): boolean {
    return this.local.isOnline(edgeRouterId) || this.elsewhere.has(edgeRouterId);
  }

  /** Stops beating and removes this instance's rows: its routers are offline until they link elsewhere. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
    await this.pool
      .query('DELETE FROM router_presence WHERE instance_id = $1', [this.instanceId])
      .catch(() => undefined);
  }

  /** One beat at a time: a slow database skips beats rather than piling them up. */
  private beat(): Promise<void> {
    this.beating ??= this.write()
      .then(
        () => {
          this.lastError = '';
        },
        (err: unknown) => {
          // Said once per distinct failure, not once a second.
          const message = (err as Error).message;
          if (message !== this.lastError)
            this.ctx.log.warn({ err }, 'router presence could not be shared with the other instances');
          this.lastError = message;
        },
      )
      .finally(() => (this.beating = undefined));
    return this.beating ?? Promise.resolve();
  }

  private async write(): Promise<void> {
    const ids = this.local.all().map((link) => link.routerId);
    await this.pool.query(
      'DELETE FROM router_presence WHERE instance_id = $1 AND NOT (router_id = ANY($2::text[]))',
      [this.instanceId, ids],
    );
    if (ids.length)
      await this.pool.query(
        `INSERT INTO router_presence (router_id, instance_id, seen_at)
           SELECT id, $1, now() FROM unnest($2::text[]) AS id
         ON CONFLICT (router_id) DO UPDATE SET instance_id = excluded.instance_id, seen_at = excluded.seen_at`,
        [this.instanceId, ids],
      );
    const { rows } = await this.pool.query<{ router_id: string }>(
      `SELECT router_id FROM router_presence WHERE seen_at > now() - make_interval(secs => $1)`,
      [PRESENCE_TTL_MS / 1000],
    );
    this.elsewhere = new Set(rows.map((r) => r.router_id));
  }
}
