/**
 * 6: which edge routers hold a link to which controller instance, for the instances sharing the database:
 * each writes its own linked routers every second and reads everyone's (edge-routers/link/shared-presence.ts).
 * No foreign key: a deleted router's row is gone with its link, or stale within seconds.
 */
export const routerPresence = `
CREATE TABLE router_presence (
  router_id text PRIMARY KEY,
  instance_id text NOT NULL,
  seen_at timestamptz NOT NULL
);
`;
