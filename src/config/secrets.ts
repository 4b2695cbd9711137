import { randomBytes } from "node:crypto"
import { link, mkdir, readFile, unlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { ConfigError, Effect, Option, Redacted } from "effect"

interface DevSecrets {
  readonly jwtSecret: string
  readonly cardVaultKey: string
}

/**
 * Development convenience: secrets not given in the environment are generated once and kept in
 * DATA_DIR/secrets.json (mode 0600), so that tokens and vaulted cards survive a restart.
 */
export const loadDevelopmentSecrets = (
  dataDir: string,
  jwtSecret: Option.Option<Redacted.Redacted>,
  cardVaultKey: Option.Option<Redacted.Redacted>
) =>
  Effect.tryPromise({
    try: async () => {
      const file = join(dataDir, "secrets.json")
      const stored = await readFile(file, "utf8").then(
        (s) => JSON.parse(s) as DevSecrets,
        () => undefined
      )
      const secrets: DevSecrets = stored ?? {
        jwtSecret: randomBytes(32).toString("base64url"),
        cardVaultKey: randomBytes(32).toString("base64")
      }
      if (!stored) {
        await mkdir(dataDir, { recursive: true })
        // Written whole under a private name, then linked into place: the file appears with its
        // content or not at all, so a process starting at the same moment never reads it half written.
        const draft = join(dataDir, `secrets.${process.pid}.${randomBytes(6).toString("hex")}.json`)
        await writeFile(draft, JSON.stringify(secrets), { mode: 0o600, flag: "wx" })
        await link(draft, file)
          .catch(async (error: NodeJS.ErrnoException) => {
            // Another process started at the same moment and won the race: use its secrets.
            if (error.code !== "EEXIST") throw error
            Object.assign(secrets, JSON.parse(await readFile(file, "utf8")) as DevSecrets)
          })
          .finally(() => unlink(draft))
      }
      return secrets
    },
    catch: (cause) =>
      ConfigError.InvalidData(["DATA_DIR"], `cannot keep development secrets in DATA_DIR: ${String(cause)}`)
  }).pipe(
    Effect.map((generated) => ({
      jwtSecret: Option.getOrElse(jwtSecret, () => Redacted.make(generated.jwtSecret)),
      cardVaultKey: Option.getOrElse(cardVaultKey, () => Redacted.make(generated.cardVaultKey))
    }))
  )
