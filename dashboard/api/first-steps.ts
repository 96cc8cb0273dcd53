// Whether this browser has seen how to connect to one of the account's instances (its page shows
// the ways), which ends the overview's guided start. Kept in the browser, per account: nothing the
// service needs to know.
const key = (accountId: string) => `gpr-connect-seen:${accountId}`;

export const connectSeen = (accountId: string) => localStorage.getItem(key(accountId)) === "1";
export const markConnectSeen = (accountId: string) => localStorage.setItem(key(accountId), "1");
