/**
 * A record kept as JSON text in the credential store, read back only when it still has every field as text:
 * what an older version, another tool or a damaged keychain entry left reads as nothing stored.
 */
export function parseStoredRecord<T>(text: string | undefined, keys: (keyof T)[]): T | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as T;
    return keys.every((k) => typeof value[k] === 'string') ? value : undefined;
  } catch {
    return undefined;
  }
}
