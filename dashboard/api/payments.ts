// Card payments: whether they are on, and a Checkout Session to pay through (Stripe's page).
import { useMutation, useQuery } from "@tanstack/react-query";
import { ok } from "../../client/index.ts";
import { api } from "./client.ts";
import { paymentConfigKey } from "./keys.ts";

export const usePaymentConfig = () => useQuery({ queryKey: paymentConfigKey, queryFn: () => ok(api.GET("/v1/billing/config")) });

export const useCheckout = () =>
  useMutation({ mutationFn: (amountMicros: number) => ok(api.POST("/v1/billing/checkout", { body: { amount_micros: amountMicros } })) });
