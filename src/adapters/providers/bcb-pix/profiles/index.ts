import { bb } from "./bb.ts"
import { efi } from "./efi.ts"
import { inter } from "./inter.ts"
import { itau } from "./itau.ts"
import type { PspProfile } from "./profile.ts"
import { santander } from "./santander.ts"
import { sicoob } from "./sicoob.ts"

export type { PspProfile } from "./profile.ts"

/** Every profile by the name `PIX_PSP` takes. */
export const profiles: Readonly<Record<string, PspProfile>> = { efi, inter, sicoob, bb, itau, santander }
