import { Layer } from "effect"
import { Argon2PasswordHasher } from "../adapters/crypto/Argon2PasswordHasher.ts"
import { JwtSessionTokens } from "../adapters/crypto/JwtSessionTokens.ts"
import { Metrics } from "../adapters/metrics/Metrics.ts"
import { AccountRepoLive } from "../adapters/postgres/AccountRepoLive.ts"
import { ApiKeyRepoLive } from "../adapters/postgres/ApiKeyRepoLive.ts"
import { CustomerRepoLive } from "../adapters/postgres/CustomerRepoLive.ts"
import { OrderRepoLive } from "../adapters/postgres/OrderRepoLive.ts"
import { RateLimiterLive } from "../adapters/postgres/RateLimiterLive.ts"
import { TransactionRepoLive } from "../adapters/postgres/TransactionRepoLive.ts"
import { JobStats } from "../jobs/JobStats.ts"
import { Ids } from "../ports/Ids.ts"
import { Accounts } from "./Accounts.ts"
import { Customers } from "./Customers.ts"
import { KeyUsage } from "./KeyUsage.ts"
import { Orders } from "./Orders.ts"
import { Transactions } from "./Transactions.ts"

/** The adapters behind the ports; needs AppConfig and SqlClient. */
export const AdaptersLive = Layer.mergeAll(
  AccountRepoLive,
  ApiKeyRepoLive,
  CustomerRepoLive,
  OrderRepoLive,
  TransactionRepoLive,
  RateLimiterLive,
  Argon2PasswordHasher,
  JwtSessionTokens,
  Ids.Live,
  Metrics.Default
)

/** The application services over the adapters. */
export const AppLive = Layer.mergeAll(
  Accounts.Default,
  Customers.Default,
  Orders.Default,
  Transactions.Default,
  KeyUsage.Default,
  JobStats.Default
).pipe(Layer.provideMerge(AdaptersLive))
