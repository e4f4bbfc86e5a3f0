import type { Db } from '../database.js';
import type { MfaRepository } from '../../mfa/mfa-repository.js';

export class SqliteMfaRepository implements MfaRepository {
  constructor(readonly db: Db) {}
}
