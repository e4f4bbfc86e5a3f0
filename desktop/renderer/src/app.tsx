/**
 * The renderer's shell: the TOTP prompt window (`#/prompt`) or the main window, which shows sign-in until
 * the session is usable, then the services, MFA and settings pages.
 */
import type { SessionView } from '../../ipc/views.js';
import { MfaPage } from './features/mfa/mfa-page.js';
import { ServiceList } from './features/services/service-list.js';
import { SettingsPage } from './features/settings/settings-page.js';
import { SignIn } from './features/sign-in/sign-in.js';
import { TotpPromptWindow } from './features/totp-prompt/totp-prompt-window.js';
import { useRoute, useSession } from './lib/hooks.js';
import { postern } from './lib/postern.js';

const PAGES = [
  { route: 'services', label: 'Services' },
  { route: 'mfa', label: 'MFA' },
  { route: 'settings', label: 'Settings' },
] as const;

export function App() {
  const [route, go] = useRoute();
  if (route === 'prompt') return <TotpPromptWindow />;
  return <MainWindow route={route} go={go} />;
}

function MainWindow({ route, go }: { route: string; go: (route: string) => void }) {
  const session = useSession();
  if (!session) {
    return (
      <main aria-busy="true">
        <p>Loading…</p>
      </main>
    );
  }
  if (session.status !== 'signed-in' && session.status !== 'needs-enrollment')
    return <SignIn session={session} />;
  // An account that must set up MFA first can do nothing else.
  const page = session.status === 'needs-enrollment' ? 'mfa' : route;
  return (
    <>
      <Header session={session} route={page} go={go} />
      <main>
        {page === 'mfa' && <MfaPage session={session} />}
        {page === 'settings' && <SettingsPage />}
        {page !== 'mfa' && page !== 'settings' && <ServiceList session={session} />}
      </main>
    </>
  );
}

function Header({
  session,
  route,
  go,
}: {
  session: SessionView;
  route: string;
  go: (route: string) => void;
}) {
  return (
    <header className="app-header">
      <span className="brand">Postern</span>
      <nav aria-label="Main">
        <ul>
          {PAGES.map((page) => (
            <li key={page.route}>
              <a
                href={`#/${page.route}`}
                aria-current={route === page.route ? 'page' : undefined}
                onClick={(event) => {
                  event.preventDefault();
                  go(page.route);
                }}
              >
                {page.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <span className="who">
        {session.identityName ?? session.username}
        {session.reachable ? '' : ' · controller unreachable'}
      </span>
      <button type="button" className="secondary" onClick={() => void postern.session.signOut()}>
        Sign out
      </button>
    </header>
  );
}
