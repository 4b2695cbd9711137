import { statSync } from "node:fs"
import { dirname, resolve } from "node:path"

/**
 * PostgreSQL refuses to run as root, so as root the embedded server runs as the unprivileged
 * `postgres` user, who must be able to traverse every directory above its binaries and its data.
 * Returns the first directory that shuts it out (no execute bit for others), or undefined.
 */
export const blockedAncestor = (path: string): string | undefined => {
  let dir = resolve(path)
  for (;;) {
    try {
      const { mode, uid } = statSync(dir)
      // Owned by root (the only other user we run as) and closed to others: `postgres` cannot pass.
      if (uid === 0 && (mode & 0o001) === 0) return dir
    } catch {
      // Not created yet: its parent decides.
    }
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

const mode = (dir: string) => (statSync(dir).mode & 0o777).toString(8).padStart(4, "0")

/** One line that names the directory and the ways out, for a start-up that cannot work as it stands. */
export const unreachableMessage = (what: string, path: string, blocked: string) =>
  `embedded PostgreSQL cannot start: it runs as the unprivileged "postgres" user (PostgreSQL refuses root), ` +
  `who cannot reach its ${what} ${path} because ${blocked} is mode ${mode(blocked)}. ` +
  `Clone the project into a directory others can traverse (e.g. /srv or /opt), or set DATABASE_URL ` +
  `to a PostgreSQL server.`
