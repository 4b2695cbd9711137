import { readFileSync, statSync } from "node:fs"
import { Config, ConfigError, Effect, Either, Option, Redacted } from "effect"
import { profiles, type PspProfile } from "./profiles/index.ts"

/** The merchant's client certificate and key (PEM pair or one PKCS#12 file) and the PSP's CA. */
export interface TlsMaterial {
  readonly cert?: Buffer
  readonly key?: Buffer
  readonly pfx?: Buffer
  readonly passphrase?: string
  readonly ca?: Buffer
}

export interface BcbPixConfig {
  readonly profile: PspProfile
  readonly environment: "production" | "homologation"
  /** The API's base: host and the profile's path prefix, no trailing slash. */
  readonly apiBase: string
  readonly tokenUrl: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted | null
  readonly tls: TlsMaterial
  /** The merchant's DICT key (`chave`) every charge is paid to. */
  readonly pixKey: string
  /** BB's developer application key, Itaú's API key. */
  readonly appKey: Redacted.Redacted | null
  /** Inter's account number (`x-conta-corrente`). */
  readonly account: string | null
  readonly timeoutMs: number
  /** Our public webhook URL as the PSP calls it (without the `/pix` the PSP appends). */
  readonly webhookUrl: string | null
}

const optional = (name: string) => Config.option(Config.string(name))

/**
 * A key file other users can read is a leaked key (docs/providers.md): refuse to start, naming the file and
 * the fix, rather than run with it. The check is POSIX mode bits; the file's content is never printed.
 */
const readSecretFile = (variable: string, path: string): Either.Either<Buffer, ConfigError.ConfigError> => {
  try {
    const mode = statSync(path).mode
    if ((mode & 0o077) !== 0) {
      return Either.left(
        ConfigError.InvalidData(
          [variable],
          `${path} is readable by group or others (mode ${(mode & 0o777).toString(8)}); chmod 600 it`
        )
      )
    }
    return Either.right(readFileSync(path))
  } catch (error) {
    return Either.left(ConfigError.InvalidData([variable], `cannot read ${path}: ${(error as Error).message}`))
  }
}

const readPublicFile = (variable: string, path: string): Either.Either<Buffer, ConfigError.ConfigError> => {
  try {
    return Either.right(readFileSync(path))
  } catch (error) {
    return Either.left(ConfigError.InvalidData([variable], `cannot read ${path}: ${(error as Error).message}`))
  }
}

const tlsMaterial = Config.all({
  certFile: optional("PIX_CERT_FILE"),
  keyFile: optional("PIX_KEY_FILE"),
  pkcs12File: optional("PIX_PKCS12_FILE"),
  pkcs12Passphrase: Config.option(Config.redacted("PIX_PKCS12_PASSPHRASE")),
  caFile: optional("PIX_CA_FILE")
}).pipe(
  Config.mapOrFail((c): Either.Either<TlsMaterial, ConfigError.ConfigError> => {
    const ca = Option.match(c.caFile, {
      onNone: () => Either.right(undefined),
      onSome: (path) => readPublicFile("PIX_CA_FILE", path)
    })
    if (Either.isLeft(ca)) return Either.left(ca.left)
    const withCa = ca.right === undefined ? {} : { ca: ca.right }
    if (Option.isSome(c.pkcs12File)) {
      const pfx = readSecretFile("PIX_PKCS12_FILE", c.pkcs12File.value)
      if (Either.isLeft(pfx)) return Either.left(pfx.left)
      const passphrase = Option.map(c.pkcs12Passphrase, Redacted.value)
      return Either.right({
        pfx: pfx.right,
        ...(Option.isSome(passphrase) ? { passphrase: passphrase.value } : {}),
        ...withCa
      })
    }
    if (Option.isNone(c.certFile) || Option.isNone(c.keyFile)) {
      // The API Pix is mTLS only (Manual de Segurança): no certificate, no PSP.
      return Either.left(
        ConfigError.MissingData(["PIX_CERT_FILE"], "set PIX_CERT_FILE and PIX_KEY_FILE, or PIX_PKCS12_FILE")
      )
    }
    const cert = readPublicFile("PIX_CERT_FILE", c.certFile.value)
    if (Either.isLeft(cert)) return Either.left(cert.left)
    const key = readSecretFile("PIX_KEY_FILE", c.keyFile.value)
    if (Either.isLeft(key)) return Either.left(key.left)
    return Either.right({ cert: cert.right, key: key.right, ...withCa })
  })
)

const trimSlash = (s: string) => s.replace(/\/+$/, "")

/**
 * `PIX_API_URL` replaces the profile's host (the fake PSP, a PSP's new host): the profile's path prefix and
 * token path are kept on it, so the same profile quirks are exercised against the fake.
 */
export const BcbPixConfig: Config.Config<BcbPixConfig> = Config.all({
  psp: Config.string("PIX_PSP").pipe(
    Config.validate({
      message: `must be one of ${Object.keys(profiles).join(", ")}`,
      validation: (name) => Object.hasOwn(profiles, name)
    })
  ),
  environment: Config.literal("production", "homologation")("PIX_ENVIRONMENT").pipe(Config.withDefault("production")),
  apiUrl: optional("PIX_API_URL"),
  clientId: Config.string("PIX_CLIENT_ID"),
  clientSecret: Config.option(Config.redacted("PIX_CLIENT_SECRET")),
  tls: tlsMaterial,
  pixKey: Config.string("PIX_KEY").pipe(
    Config.validate({
      message: "PIX_KEY must be a DICT key of at most 77 characters",
      validation: (k) => k.length <= 77
    })
  ),
  appKey: Config.option(Config.redacted("PIX_APP_KEY")),
  account: optional("PIX_ACCOUNT"),
  timeoutMs: Config.integer("PIX_TIMEOUT_MS").pipe(
    Config.withDefault(10_000),
    Config.validate({ message: "PIX_TIMEOUT_MS must be a positive integer", validation: (n) => n > 0 })
  ),
  webhookUrl: optional("PIX_WEBHOOK_URL")
}).pipe(
  Config.mapOrFail((c): Either.Either<BcbPixConfig, ConfigError.ConfigError> => {
    const profile = profiles[c.psp]!
    const env = c.environment
    const needsAppKey = profile.appKeyQuery !== null || profile.appKeyHeader !== null
    if (needsAppKey && Option.isNone(c.appKey))
      return Either.left(ConfigError.MissingData(["PIX_APP_KEY"], `the ${profile.name} profile needs PIX_APP_KEY`))
    if (profile.accountHeader !== null && Option.isNone(c.account))
      return Either.left(ConfigError.MissingData(["PIX_ACCOUNT"], `the ${profile.name} profile needs PIX_ACCOUNT`))
    const host = Option.match(c.apiUrl, { onNone: () => profile.apiHost[env], onSome: trimSlash })
    const tokenUrl = Option.match(c.apiUrl, {
      onNone: () => profile.tokenUrl[env],
      onSome: (override) => trimSlash(override) + new URL(profile.tokenUrl[env]).pathname
    })
    return Either.right({
      profile,
      environment: env,
      apiBase: host + profile.pathPrefix,
      tokenUrl,
      clientId: c.clientId,
      clientSecret: Option.getOrNull(c.clientSecret),
      tls: c.tls,
      pixKey: c.pixKey,
      appKey: Option.getOrNull(c.appKey),
      account: Option.getOrNull(c.account),
      timeoutMs: c.timeoutMs,
      webhookUrl: Option.getOrNull(c.webhookUrl)
    })
  })
)

/** Loads the configuration now (start-up), failing with the one-line configuration error. */
export const loadBcbPixConfig = Effect.suspend(() => BcbPixConfig)
