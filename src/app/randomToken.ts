import { randomFillSync } from "node:crypto"

/** Random bytes drawn from the kernel at once, then handed out 32 at a time. */
const POOL_BYTES = 4_096

let pool = Buffer.alloc(0)
let offset = 0

/**
 * 256 random bits as base64url (43 characters): the credential behind a public QR or PDF URL.
 *
 * Drawn from a pooled buffer filled by the same CSPRNG as `randomBytes`, as Node pools the bytes of
 * `randomUUID`: `randomBytes(32)` makes a system call per token, two per charge, which a CPU profile of
 * a loaded service put at 1.5 % of a PIX charge (docs/performance.md "Small costs of the charge").
 * Each byte is handed out once: the pool is refilled, never reused.
 */
export const randomToken = (): string => {
  if (offset + 32 > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES))
    offset = 0
  }
  const token = pool.toString("base64url", offset, offset + 32)
  // Spent bytes are zeroed so that a heap dump holds no token but those still to come.
  pool.fill(0, offset, offset + 32)
  offset += 32
  return token
}
