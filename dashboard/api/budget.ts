// The account's monthly budget: PATCH /v1/account sets it, GET /v1/me shows it with the month's spend.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ok, type components } from "../../client/index.ts";
import type { Me } from "./account.ts";
import { api } from "./client.ts";
import { meKey } from "./keys.ts";

export type BudgetAction = Me["account"]["budget_action"];
type BudgetSettings = Pick<components["schemas"]["AccountSettings"], "monthly_budget_micros" | "budget_action">;

/** Sets the budget; the answer is /v1/me's, which the banner reads. */
export function useSetBudget() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: BudgetSettings) => ok(api.PATCH("/v1/account", { body })),
    onSuccess: (me) => queryClient.setQueryData(meKey, me),
  });
}
