/** /api renders the domain's errors in the shared default words (CONTRACT §4). */
export { rendered, renderDomainError, type Rendered } from "../shared/domainErrors.ts"
