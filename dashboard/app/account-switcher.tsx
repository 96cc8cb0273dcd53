// The header's "Account" select: the signed-in person's accounts, each with their role in it; picking
// one makes it the session's current account and reads every page's data again for it.
import { useId } from "react";
import { useSwitchAccount, type Me } from "../api/account.ts";
import { formError } from "../api/api-errors.ts";
import { FormError } from "../components/form-error.tsx";
import { navigate, useLocation } from "../router/router.tsx";
import { pageAfterSwitch } from "./after-switch.ts";

export function AccountSwitcher({ me }: { me: Me }) {
  const switchTo = useSwitchAccount();
  const location = useLocation();
  const id = useId();
  return (
    <>
      <label htmlFor={id} className="visually-hidden">
        Account
      </label>
      <select
        id={id}
        value={me.account.id}
        disabled={switchTo.isPending}
        onChange={(event) => switchTo.mutate(event.target.value, { onSuccess: () => navigate(pageAfterSwitch(location), { replace: true }) })}
      >
        {me.accounts.map((account) => (
          <option key={account.id} value={account.id}>
            {account.name} ({account.role})
          </option>
        ))}
      </select>
      <FormError message={formError(switchTo.error, [])} />
    </>
  );
}
