/**
 * The console's shell: sign-in until an administrator is signed in, then the header with the sections and
 * the page the URL names (routes.tsx).
 */
import { useEffect, useState } from 'react';
import { signOut } from './api/auth.js';
import { api } from './api/client.js';
import type { Identity } from './api/types.js';
import { Link, navigate, useRoute } from './lib/router.js';
import { PageFor } from './routes.js';
import { SignInPage } from './pages/sign-in/sign-in-page.js';

const SECTIONS = [
  { to: '/', label: 'Overview' },
  { to: '/identities', label: 'Identities' },
  { to: '/services', label: 'Services' },
  { to: '/configs', label: 'Configs' },
  { to: '/service-policies', label: 'Service policies' },
  { to: '/posture-checks', label: 'Posture checks' },
  { to: '/posture-check-exceptions', label: 'Exceptions' },
  { to: '/edge-routers', label: 'Edge routers' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/why-blocked', label: 'Why blocked?' },
  { to: '/audit', label: 'Audit' },
] as const;

export function App() {
  const [admin, setAdmin] = useState<Identity | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(
    () =>
      api.onExpired(() => {
        setAdmin(null);
        setNotice('Your session ended. Sign in again.');
      }),
    [],
  );
  if (!admin) {
    return (
      <SignInPage
        notice={notice}
        onSignedIn={(identity) => {
          setNotice(null);
          setAdmin(identity);
        }}
      />
    );
  }
  return (
    <Shell
      admin={admin}
      onSignOut={async () => {
        await signOut();
        setAdmin(null);
        navigate('/', { replace: true });
      }}
    />
  );
}

function Shell({ admin, onSignOut }: { admin: Identity; onSignOut: () => Promise<void> }) {
  const route = useRoute();
  const section = `/${route.segments[0] ?? ''}`;
  return (
    <>
      <header className="app-header">
        <span className="brand">Postern console</span>
        <span className="who">{admin.name}</span>
        <button type="button" className="secondary small" onClick={() => void onSignOut()}>
          Sign out
        </button>
      </header>
      <nav aria-label="Sections" className="sections">
        <ul>
          {SECTIONS.map((s) => (
            <li key={s.to}>
              <Link to={s.to} aria-current={section === s.to ? 'page' : undefined}>
                {s.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main className="console">
        <PageFor route={route} />
      </main>
    </>
  );
}
