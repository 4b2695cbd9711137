import { Context, type Effect } from "effect"

export class PasswordHasher extends Context.Tag("PasswordHasher")<
  PasswordHasher,
  {
    readonly hash: (password: string) => Effect.Effect<string>
    readonly verify: (hash: string, password: string) => Effect.Effect<boolean>
  }
>() {}
