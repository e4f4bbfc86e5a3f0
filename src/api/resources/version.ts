/** `GET /version` on both APIs: what the controller is and which APIs it serves (OpenZiti's shape). */
import { Type } from '@sinclair/typebox';

const ApiVersion = Type.Object({
  path: Type.String(),
  version: Type.String(),
  apiBaseUrls: Type.Array(Type.String()),
});
export const VersionDetail = Type.Object({
  version: Type.String(),
  revision: Type.String(),
  buildDate: Type.String(),
  runtimeVersion: Type.String(),
  capabilities: Type.Array(Type.String()),
  apiVersions: Type.Record(Type.String(), Type.Record(Type.String(), ApiVersion)),
});
