import type { Db } from '../database.js';
import type { PostureRepository } from '../../posture/posture-repository.js';

export class SqlitePostureRepository implements PostureRepository {
  constructor(readonly db: Db) {}
}
