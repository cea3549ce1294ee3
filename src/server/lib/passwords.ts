import { hash, verify } from "@node-rs/argon2";

// argon2id (the @node-rs/argon2 default) with OWASP's minimum: m=19 MiB, t=2, p=1.
const ARGON = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/** argon2id hash of `password` (OWASP Password Storage Cheat Sheet parameters). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON);
}

/** True when `password` matches the argon2 `passwordHash`; false on mismatch or a malformed hash. */
export function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  return verify(passwordHash, password).catch(() => false);
}
