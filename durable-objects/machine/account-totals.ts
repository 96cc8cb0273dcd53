// Bytes counted per account on this host and in all: what the MachineDO's bounds on its own memory
// check a tenant against (queue-budget.ts, body-reads.ts). An account whose count falls to zero is
// forgotten, so the map holds only accounts with bytes here now.
export class AccountTotals {
  readonly #perAccount = new Map<string, number>();
  #total = 0;

  /** The bytes counted: in all, or of one account. */
  of(accountId?: string): number {
    return accountId === undefined ? this.#total : (this.#perAccount.get(accountId) ?? 0);
  }

  /** `bytes` more of `accountId`'s or, negative, fewer: the caller gives back exactly what it took. */
  change(accountId: string, bytes: number): void {
    this.#total += bytes;
    const account = (this.#perAccount.get(accountId) ?? 0) + bytes;
    if (account > 0) this.#perAccount.set(accountId, account);
    else this.#perAccount.delete(accountId);
  }
}
