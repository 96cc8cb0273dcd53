// An invitation's token, from the link's fragment (/invite#<token>), which a browser never sends to
// a server. It is kept in this tab's session storage, so that a detour through the sign-in page
// (/login?next=/invite) comes back to it without the token ever being in an address a server sees.
const STORAGE_KEY = "gpu-rental.invitation";

/** The token of the link this tab opened, or null. */
export function invitationToken(): string | null {
  const fromLink = decodeURIComponent(window.location.hash.slice(1));
  if (fromLink) {
    sessionStorage.setItem(STORAGE_KEY, fromLink);
    return fromLink;
  }
  return sessionStorage.getItem(STORAGE_KEY);
}

/** Once the invitation is accepted: its token is of no more use. */
export const forgetInvitationToken = () => sessionStorage.removeItem(STORAGE_KEY);
