import { type Config, ConfigError, ConfigProvider, Either } from "effect"

/**
 * `provider`, except that a variable set to the empty string (or to spaces only) is missing, as if unset
 * (docs/configuration.md "Empty values"): its default applies, and a required one is refused as missing.
 * Without it, Effect's Config.integer reads "" as Number("") = 0 (REQUEST_LOG_RETENTION_DAYS="" purged the
 * request log at once), DATA_DIR="" put the data in the current directory and JWT_SECRET="" was a zero-length
 * key. It is Effect's own reading of an empty value in Config.nonEmptyString (MissingData "Expected a non-empty
 * string"), and what `${VAR}` of a variable the shell or compose file does not define expands to.
 */
export const emptyAsUnset = (provider: ConfigProvider.ConfigProvider): ConfigProvider.ConfigProvider => {
  const flat = provider.flattened
  return ConfigProvider.fromFlat(
    ConfigProvider.makeFlat({
      load: <A>(path: ReadonlyArray<string>, primitive: Config.Config.Primitive<A>, split: boolean) =>
        flat.load(path, nonEmpty(path, primitive), split),
      enumerateChildren: (path) => flat.enumerateChildren(path),
      patch: flat.patch
    })
  )
}

/** `primitive` failing with MissingData on a blank text, before it parses it. */
const nonEmpty = <A>(path: ReadonlyArray<string>, primitive: Config.Config.Primitive<A>) => {
  const parse = (text: string): Either.Either<A, ConfigError.ConfigError> =>
    text.trim() === ""
      ? Either.left(ConfigError.MissingData([], `${path.join("_")} is empty, which counts as unset`))
      : primitive.parse(text)
  // The same primitive (its tag and description, which the provider reads) with that parse.
  return Object.assign(Object.create(Object.getPrototypeOf(primitive) as object) as Config.Config.Primitive<A>, {
    ...primitive,
    parse
  })
}
