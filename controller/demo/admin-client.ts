/** A minimal management-API client for seeding: admin login, find-by-name, create, patch. */

const MGMT = '/edge/management/v1';

interface Named {
  id: string;
  name: string;
}

export class AdminClient {
  private token = '';

  constructor(private readonly baseUrl: string) {}

  async login(password: string): Promise<void> {
    const res = await fetch(`${this.baseUrl}${MGMT}/authenticate?method=password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    if (res.status !== 200)
      throw new Error(`demo seeding: admin login failed (HTTP ${res.status}); is the admin password right?`);
    this.token = res.headers.get('zt-session') ?? '';
  }

  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.baseUrl}${MGMT}${path}`, {
      method,
      headers: {
        'zt-session': this.token,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok)
      throw new Error(`demo seeding: ${method} ${path} failed (HTTP ${res.status}): ${text.slice(0, 300)}`);
    return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
  }

  async findByName(collection: string, name: string): Promise<Named | undefined> {
    const filter = encodeURIComponent(`name = "${name}"`);
    const found = await this.call<Named[]>('GET', `/${collection}?filter=${filter}&limit=2`);
    return found.find((e) => e.name === name);
  }

  /** Creates the named entity, or brings an existing one up to date; resolves with its id. */
  async upsert(collection: string, body: { name: string } & Record<string, unknown>): Promise<string> {
    const existing = await this.findByName(collection, body.name);
    if (existing) {
      await this.call('PATCH', `/${collection}/${existing.id}`, body);
      return existing.id;
    }
    return (await this.call<{ id: string }>('POST', `/${collection}`, body)).id;
  }
}
