// The API's types, generated from openapi.json by `npm run openapi` (openapi-typescript). Do not edit.

export interface paths {
    "/admin/v1/accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an account
         * @description Creates an account with an optional starting balance (written to its ledger as a credit).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": components["schemas"]["CreateAccount"];
                };
            };
            responses: {
                /** @description The account */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["AdminAccount"];
                    };
                };
                /** @description Malformed request (bad_request) or invalid parameter (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Operator token missing or wrong (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 1 MiB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/accounts/{id}/credits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Credit (or debit) an account
         * @description Adds `amount_micros` (negative to debit) to the balance, with a ledger row carrying the note.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["Credit"];
                };
            };
            responses: {
                /** @description The new balance */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Balance"];
                    };
                };
                /** @description Malformed request (bad_request) or invalid parameter (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Operator token missing or wrong (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such account or key (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 1 MiB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/accounts/{id}/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Live keys of an account (never the key itself)
         * @description The account's live keys with their prefix, name, creation and last use; never the key itself.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Keys */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["KeyList"];
                    };
                };
                /** @description Operator token missing or wrong (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such account or key (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Create an API key; the key is shown once
         * @description Creates an API key for the account. Only its hash is stored: the key is in this answer and nowhere else.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": components["schemas"]["CreateKey"];
                };
            };
            responses: {
                /** @description The key */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CreatedKey"];
                    };
                };
                /** @description Malformed request (bad_request) or invalid parameter (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Operator token missing or wrong (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such account or key (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The account cannot take it (conflict) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 1 MiB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/accounts/{id}/keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a key, effective on its next use
         * @description Revokes the key: its next request, and every one after, is 401.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    key_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Revoked */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Operator token missing or wrong (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such account or key (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/gpu-models/{model}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Create or update a GPU model and its price
         * @description Sets a GPU model's display name, VRAM, tier, architecture and hourly price per GPU; launches from now on pay the new price.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    model: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["GpuModelBody"];
                };
            };
            responses: {
                /** @description The entry */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["GpuModel"];
                    };
                };
                /** @description Malformed request (bad_request) or invalid parameter (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Operator token missing or wrong (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 1 MiB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/v1/machines": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Machines and their GPUs
         * @description Every registered machine: whether its agent is connected, its GPUs, how many are free, and when it was last seen.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Machines */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["MachineList"];
                    };
                };
                /** @description Operator token missing or wrong (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Register a machine; its agent token is shown once
         * @description Registers a GPU machine. Its host agent connects with the returned `agent_token`, which is never shown again.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": components["schemas"]["CreateMachine"];
                };
            };
            responses: {
                /** @description The machine */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CreatedMachine"];
                    };
                };
                /** @description Malformed request (bad_request) or invalid parameter (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Operator token missing or wrong (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 1 MiB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in
         * @description An unknown email and a wrong password get the same 401.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["Credentials"];
                };
            };
            responses: {
                /** @description The account, the /me shape */
                200: {
                    headers: {
                        /** @description gpr_session=gps_...; HttpOnly; SameSite=Lax; Path=/; Secure (not on http://localhost) */
                        "set-cookie": string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Me"];
                    };
                };
                /** @description Malformed request (bad_request) or invalid parameter (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Signed in with the session cookie, but Origin is missing or not this service (forbidden) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 1 MiB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign out
         * @description Ends the session on the server and clears the cookie; without a session it only clears the cookie. The instance web apps the session opened (POST /v1/instances/{id}/ports/{port}/open) refuse their next request.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Signed out */
                204: {
                    headers: {
                        /** @description gpr_session=gps_...; HttpOnly; SameSite=Lax; Path=/; Secure (not on http://localhost) */
                        "set-cookie": string;
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Signed in with the session cookie, but Origin is missing or not this service (forbidden) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change the password
         * @description Needs the session cookie (not an API key). Every other session of the account ends; this one stays.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PasswordChange"];
                };
            };
            responses: {
                /** @description Changed */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Malformed request (bad_request) or invalid parameter (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Signed in with the session cookie, but Origin is missing or not this service (forbidden) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description no_capacity, gpus_busy, conflict or not_running */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 1 MiB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an account and sign in
         * @description Creates an account with an email and a password (12 to 128 characters) and answers with a session cookie.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["Credentials"];
                };
            };
            responses: {
                /** @description The new account, the /me shape */
                201: {
                    headers: {
                        /** @description gpr_session=gps_...; HttpOnly; SameSite=Lax; Path=/; Secure (not on http://localhost) */
                        "set-cookie": string;
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Me"];
                    };
                };
                /** @description Malformed request (bad_request) or invalid parameter (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Signed in with the session cookie, but Origin is missing or not this service (forbidden) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description no_capacity, gpus_busy, conflict or not_running */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 1 MiB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/ledger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Balance history, newest first
         * @description Credits, debits and charges (one row per instance and settlement), each with the balance after it. Pages follow `next_cursor`; entries written meanwhile never make a page repeat or skip one.
         */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    /** @description next_cursor of the previous page; absent for the newest entries */
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of entries */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["LedgerPage"];
                    };
                };
                /** @description Malformed request (bad_request) or invalid parameter (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/catalog": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * GPUs, templates, models with cache status
         * @description What can be launched: the GPU models (as GET /gpus), the templates (software stacks with their image, ports and requirements) and the models they serve; a model is `cached` when an online machine has it in its cache.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The catalog */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Catalog"];
                    };
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/gpus": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * GPU models, prices, availability
         * @description Every GPU model with its hourly price per GPU, `free_gpus` (free GPUs of that model on online machines now) and `max_per_server` (the largest `gpu_count` one launch can get now: the most free GPUs on a single machine).
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description GPU models */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["GpuList"];
                    };
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/instances": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's instances, newest first (destroyed ones for 7 days)
         * @description Every instance of the account, newest first; destroyed instances stay listed for 7 days.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Instances */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["InstanceList"];
                    };
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Launch an instance
         * @description Places the instance on one machine with `gpu_count` free GPUs of `gpu_model` and starts creating it: 201 with status `creating`, then `running` (or `error` with the reason in `status_message`). The balance must cover one hour of its price (`price_hour_micros` of the GPU model x `gpu_count`, frozen at launch). An `Idempotency-Key` makes a retried launch with the same body return the first instance for 24 hours.
         */
        post: {
            parameters: {
                query?: never;
                header?: {
                    "idempotency-key"?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["LaunchRequest"];
                };
            };
            responses: {
                /** @description The new instance, status creating */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Instance"];
                    };
                };
                /** @description Malformed request (bad_request) or invalid parameter (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Balance does not cover one hour (insufficient_funds) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Signed in with the session cookie, but Origin is missing or not this service (forbidden) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description no_capacity, gpus_busy, conflict or not_running */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 1 MiB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/instances/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One instance
         * @description The instance with its status, ports, token and price; `machine_online` says whether its host is connected.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The instance */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Instance"];
                    };
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such instance or key in the account (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /**
         * Destroy the instance and its data
         * @description Removes the container and its data for good; billing stops. Allowed in any status but destroyed (409 conflict).
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Done */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Signed in with the session cookie, but Origin is missing or not this service (forbidden) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such instance or key in the account (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description no_capacity, gpus_busy, conflict or not_running */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /**
         * Rename
         * @description Sets the instance's `label` (at most 64 characters), in any status.
         */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["RenameRequest"];
                };
            };
            responses: {
                /** @description The renamed instance */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Instance"];
                    };
                };
                /** @description Malformed request (bad_request) or invalid parameter (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Signed in with the session cookie, but Origin is missing or not this service (forbidden) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such instance or key in the account (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 1 MiB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/instances/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Event log, newest first
         * @description What happened to the instance (placement, image pull, start, stop, errors, billing stops), newest first.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Events */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["EventList"];
                    };
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such instance or key in the account (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/instances/{id}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Container logs, or follow them
         * @description The container's last `tail` lines (1 to 10,000, default 200), stdout and stderr interleaved as they were written, as `text/plain`: one line each. With `follow=true` the answer is `text/event-stream` and stays open: one event per line, `data: {"t": "<ISO time>", "stream": "stdout" | "stderr", "line": "<text>"}` (see LogEvent), first the tail, then every new line until the container stops or the client leaves; a `: keep-alive` comment goes out after 15 s without a line. A request whose `Accept` names `text/event-stream` gets the tail as such events without following. A stopped instance's logs stay readable while its data is kept. 409 not_running when the host has no logs for the instance (none yet, or removed with it); 502 upstream_unavailable when the host is offline.
         */
        get: {
            parameters: {
                query?: {
                    /** @description How many of the last lines (default 200) */
                    tail?: number;
                    /** @description Keep the response open and send new lines as server-sent events until the container stops */
                    follow?: "true" | "false";
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The lines as text, or as server-sent events */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                        "text/event-stream": string;
                    };
                };
                /** @description Malformed request (bad_request) or invalid parameter (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such instance or key in the account (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description no_capacity, gpus_busy, conflict or not_running */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Nothing answers on the port, or the host is offline (upstream_unavailable) */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/instances/{id}/ports/{port}/open": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open an instance web app in the browser
         * @description The address of the web app (Jupyter, ComfyUI, Gradio ...) on HTTP port `port` of a running instance, on an origin of its own: `{instance id}-{port}.{APPS_DOMAIN}`, with a one-time ticket valid 60 s for that instance and port only. The first request with the ticket is redirected to the same address without it and gets the app's session cookie `gpr_app` (at most 12 h, for this run of the instance); every request on that origin then goes to `http://localhost:{port}{path}` inside the instance exactly as sent. The app's session ends when the instance stops or is destroyed, and when the key or the session that opened it is revoked or signs out. 404 not_found when the instance has no such HTTP port, 409 not_running when it is not running.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    /** @description One of the instance's HTTP ports */
                    port: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The app's address, with its ticket */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OpenedApp"];
                    };
                };
                /** @description Malformed request (bad_request) or invalid parameter (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Signed in with the session cookie, but Origin is missing or not this service (forbidden) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such instance or key in the account (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description no_capacity, gpus_busy, conflict or not_running */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/instances/{id}/proxy/{port}/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Proxy GET to a port inside the instance
         * @description Forwards any method, headers, body, streamed response (server-sent events included) or WebSocket upgrade to
         *     `http://localhost:{port}/{path}` inside a running instance, with the path and query exactly as sent. Bodies
         *     stream both ways with flow control; request bodies up to 512 MB; no time limit on long streams or WebSockets.
         *
         *     Authenticate with an account API key or the instance's own `token` (which opens this instance's proxy and
         *     nothing else). The caller's `Authorization` header and cookies are not forwarded; send
         *     `X-Upstream-Authorization: Bearer X` to give the server `Authorization: Bearer X`. The upstream also gets
         *     `X-Forwarded-For`, `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-Prefix: /v1/instances/{id}/proxy/{port}`.
         *
         *     Any status the server inside answers is passed through; the errors below come from the proxy itself.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    port: number;
                    /** @description The rest of the path, slashes included, passed on exactly as sent (with the query) */
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description WebSocket upgrade accepted by the server inside; frames pass both ways */
                101: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description The port is not an integer from 1 to 65535 (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No key or instance token, or one that does not open this instance (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such instance in the account (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The instance is not running (not_running) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 512 MB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited); Retry-After says when to retry */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Nothing answers on the port yet, or the host is offline (upstream_unavailable) */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The response of the server inside the instance, passed through unchanged */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /**
         * Proxy PUT to a port inside the instance
         * @description Forwards any method, headers, body, streamed response (server-sent events included) or WebSocket upgrade to
         *     `http://localhost:{port}/{path}` inside a running instance, with the path and query exactly as sent. Bodies
         *     stream both ways with flow control; request bodies up to 512 MB; no time limit on long streams or WebSockets.
         *
         *     Authenticate with an account API key or the instance's own `token` (which opens this instance's proxy and
         *     nothing else). The caller's `Authorization` header and cookies are not forwarded; send
         *     `X-Upstream-Authorization: Bearer X` to give the server `Authorization: Bearer X`. The upstream also gets
         *     `X-Forwarded-For`, `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-Prefix: /v1/instances/{id}/proxy/{port}`.
         *
         *     Any status the server inside answers is passed through; the errors below come from the proxy itself.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    port: number;
                    /** @description The rest of the path, slashes included, passed on exactly as sent (with the query) */
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The port is not an integer from 1 to 65535 (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No key or instance token, or one that does not open this instance (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such instance in the account (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The instance is not running (not_running) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 512 MB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited); Retry-After says when to retry */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Nothing answers on the port yet, or the host is offline (upstream_unavailable) */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The response of the server inside the instance, passed through unchanged */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /**
         * Proxy POST to a port inside the instance
         * @description Forwards any method, headers, body, streamed response (server-sent events included) or WebSocket upgrade to
         *     `http://localhost:{port}/{path}` inside a running instance, with the path and query exactly as sent. Bodies
         *     stream both ways with flow control; request bodies up to 512 MB; no time limit on long streams or WebSockets.
         *
         *     Authenticate with an account API key or the instance's own `token` (which opens this instance's proxy and
         *     nothing else). The caller's `Authorization` header and cookies are not forwarded; send
         *     `X-Upstream-Authorization: Bearer X` to give the server `Authorization: Bearer X`. The upstream also gets
         *     `X-Forwarded-For`, `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-Prefix: /v1/instances/{id}/proxy/{port}`.
         *
         *     Any status the server inside answers is passed through; the errors below come from the proxy itself.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    port: number;
                    /** @description The rest of the path, slashes included, passed on exactly as sent (with the query) */
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The port is not an integer from 1 to 65535 (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No key or instance token, or one that does not open this instance (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such instance in the account (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The instance is not running (not_running) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 512 MB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited); Retry-After says when to retry */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Nothing answers on the port yet, or the host is offline (upstream_unavailable) */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The response of the server inside the instance, passed through unchanged */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /**
         * Proxy DELETE to a port inside the instance
         * @description Forwards any method, headers, body, streamed response (server-sent events included) or WebSocket upgrade to
         *     `http://localhost:{port}/{path}` inside a running instance, with the path and query exactly as sent. Bodies
         *     stream both ways with flow control; request bodies up to 512 MB; no time limit on long streams or WebSockets.
         *
         *     Authenticate with an account API key or the instance's own `token` (which opens this instance's proxy and
         *     nothing else). The caller's `Authorization` header and cookies are not forwarded; send
         *     `X-Upstream-Authorization: Bearer X` to give the server `Authorization: Bearer X`. The upstream also gets
         *     `X-Forwarded-For`, `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-Prefix: /v1/instances/{id}/proxy/{port}`.
         *
         *     Any status the server inside answers is passed through; the errors below come from the proxy itself.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    port: number;
                    /** @description The rest of the path, slashes included, passed on exactly as sent (with the query) */
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The port is not an integer from 1 to 65535 (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No key or instance token, or one that does not open this instance (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such instance in the account (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The instance is not running (not_running) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 512 MB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited); Retry-After says when to retry */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Nothing answers on the port yet, or the host is offline (upstream_unavailable) */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The response of the server inside the instance, passed through unchanged */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /**
         * Proxy OPTIONS to a port inside the instance
         * @description Forwards any method, headers, body, streamed response (server-sent events included) or WebSocket upgrade to
         *     `http://localhost:{port}/{path}` inside a running instance, with the path and query exactly as sent. Bodies
         *     stream both ways with flow control; request bodies up to 512 MB; no time limit on long streams or WebSockets.
         *
         *     Authenticate with an account API key or the instance's own `token` (which opens this instance's proxy and
         *     nothing else). The caller's `Authorization` header and cookies are not forwarded; send
         *     `X-Upstream-Authorization: Bearer X` to give the server `Authorization: Bearer X`. The upstream also gets
         *     `X-Forwarded-For`, `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-Prefix: /v1/instances/{id}/proxy/{port}`.
         *
         *     Any status the server inside answers is passed through; the errors below come from the proxy itself.
         */
        options: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    port: number;
                    /** @description The rest of the path, slashes included, passed on exactly as sent (with the query) */
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The port is not an integer from 1 to 65535 (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No key or instance token, or one that does not open this instance (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such instance in the account (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The instance is not running (not_running) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 512 MB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited); Retry-After says when to retry */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Nothing answers on the port yet, or the host is offline (upstream_unavailable) */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The response of the server inside the instance, passed through unchanged */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /**
         * Proxy HEAD to a port inside the instance
         * @description Forwards any method, headers, body, streamed response (server-sent events included) or WebSocket upgrade to
         *     `http://localhost:{port}/{path}` inside a running instance, with the path and query exactly as sent. Bodies
         *     stream both ways with flow control; request bodies up to 512 MB; no time limit on long streams or WebSockets.
         *
         *     Authenticate with an account API key or the instance's own `token` (which opens this instance's proxy and
         *     nothing else). The caller's `Authorization` header and cookies are not forwarded; send
         *     `X-Upstream-Authorization: Bearer X` to give the server `Authorization: Bearer X`. The upstream also gets
         *     `X-Forwarded-For`, `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-Prefix: /v1/instances/{id}/proxy/{port}`.
         *
         *     Any status the server inside answers is passed through; the errors below come from the proxy itself.
         */
        head: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    port: number;
                    /** @description The rest of the path, slashes included, passed on exactly as sent (with the query) */
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The port is not an integer from 1 to 65535 (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No key or instance token, or one that does not open this instance (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such instance in the account (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The instance is not running (not_running) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 512 MB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited); Retry-After says when to retry */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Nothing answers on the port yet, or the host is offline (upstream_unavailable) */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The response of the server inside the instance, passed through unchanged */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /**
         * Proxy PATCH to a port inside the instance
         * @description Forwards any method, headers, body, streamed response (server-sent events included) or WebSocket upgrade to
         *     `http://localhost:{port}/{path}` inside a running instance, with the path and query exactly as sent. Bodies
         *     stream both ways with flow control; request bodies up to 512 MB; no time limit on long streams or WebSockets.
         *
         *     Authenticate with an account API key or the instance's own `token` (which opens this instance's proxy and
         *     nothing else). The caller's `Authorization` header and cookies are not forwarded; send
         *     `X-Upstream-Authorization: Bearer X` to give the server `Authorization: Bearer X`. The upstream also gets
         *     `X-Forwarded-For`, `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-Prefix: /v1/instances/{id}/proxy/{port}`.
         *
         *     Any status the server inside answers is passed through; the errors below come from the proxy itself.
         */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    port: number;
                    /** @description The rest of the path, slashes included, passed on exactly as sent (with the query) */
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The port is not an integer from 1 to 65535 (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No key or instance token, or one that does not open this instance (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such instance in the account (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The instance is not running (not_running) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 512 MB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited); Retry-After says when to retry */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Nothing answers on the port yet, or the host is offline (upstream_unavailable) */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The response of the server inside the instance, passed through unchanged */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        trace?: never;
    };
    "/v1/instances/{id}/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a stopped instance
         * @description Starts a stopped (or failed) instance again on the same machine: status `starting`, then `running`. 409 gpus_busy when its GPUs were taken meanwhile, 402 when the balance does not cover one hour, 409 conflict in any other status.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Done */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Balance does not cover one hour (insufficient_funds) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Signed in with the session cookie, but Origin is missing or not this service (forbidden) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such instance or key in the account (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description no_capacity, gpus_busy, conflict or not_running */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/instances/{id}/stop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stop, keeping data
         * @description Stops the container and billing and releases the GPUs; the data is kept. Allowed in running, starting and creating; otherwise 409 conflict.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Done */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Signed in with the session cookie, but Origin is missing or not this service (forbidden) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such instance or key in the account (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description no_capacity, gpus_busy, conflict or not_running */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The account's live API keys
         * @description Each key's prefix, name and last use (to the minute); never the key itself.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Live keys, oldest first */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["KeyList"];
                    };
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Create an API key; the key is shown this once
         * @description An account holds at most 50 live keys; the 51st is 409 conflict.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": components["schemas"]["CreateKey"];
                };
            };
            responses: {
                /** @description The key */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CreatedKey"];
                    };
                };
                /** @description Malformed request (bad_request) or invalid parameter (invalid) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Signed in with the session cookie, but Origin is missing or not this service (forbidden) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description no_capacity, gpus_busy, conflict or not_running */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Request body larger than 1 MiB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description The key gets 401 from its next request on. Revoking the key making this request is allowed.
         */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Revoked */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Signed in with the session cookie, but Origin is missing or not this service (forbidden) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No such instance or key in the account (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Account and balance
         * @description The caller's account (`id`, `referral_code`, `created_at`) and its balance in micro-dollars, settled up to now.
         */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The account */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Me"];
                    };
                };
                /** @description API key or session missing, wrong, expired or revoked (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Too many requests (rate_limited) */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * GET on an instance web app's own origin
         * @description Every (instance, port) has an origin of its own, so an app's JavaScript never runs on the API's origin.
         *     POST /v1/instances/{id}/ports/{port}/open gives its address with a one-time ticket; the first request with the
         *     ticket is answered 302 to the same address without it, setting the cookie `gpr_app` (HttpOnly, SameSite=Lax,
         *     host-only, Path=/, Secure on https, at most 12 h, bound to the instance, the port and the instance's current run).
         *
         *     With the cookie, every method, path and query goes to `http://localhost:{port}{path}?{query}` inside the instance
         *     exactly as sent, with no path prefix: Authorization and the app's own cookies are passed through, only `gpr_app`
         *     is removed. Streamed responses, server-sent events, WebSockets and request bodies up to 512 MB work as on the proxy.
         *
         *     Refusals are a short HTML page, or `{error, message}` when the request accepts JSON and not HTML. The app session
         *     ends when the instance stops (409 not_running until it is started; then 401), is started again or destroyed, and
         *     when the key or the session that opened it is revoked or signs out. These origins have their own per-IP request
         *     budget (APPS_RATE_LIMIT_RPS, 200 a second).
         */
        get: {
            parameters: {
                query?: {
                    /** @description The one-time ticket of an opened app's address (valid 60 s) */
                    gpr_ticket?: string;
                };
                header?: never;
                path: {
                    /** @description Any path, slashes included, passed on exactly as sent (with the query) */
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description WebSocket upgrade accepted by the app; frames pass both ways */
                101: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description A ticket redeemed: to the same address without it, with the app's session cookie */
                302: {
                    headers: {
                        /** @description gpr_app=gpa_...; Max-Age=43200; Path=/; HttpOnly; SameSite=Lax; Secure */
                        "set-cookie": string;
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No app session, or one that has ended; a ticket used already, expired, or of another app (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The host names no app: not {instance id}-{port} with a port from 1 to 65535 (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The instance is stopped or not running yet (not_running) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description Request body larger than 512 MB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description More than APPS_RATE_LIMIT_RPS requests a second from this address (rate_limited); Retry-After says when to retry */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description Nothing answers on the port yet, or the host is offline (upstream_unavailable) */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The response of the app inside the instance, passed through unchanged */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /**
         * PUT on an instance web app's own origin
         * @description Every (instance, port) has an origin of its own, so an app's JavaScript never runs on the API's origin.
         *     POST /v1/instances/{id}/ports/{port}/open gives its address with a one-time ticket; the first request with the
         *     ticket is answered 302 to the same address without it, setting the cookie `gpr_app` (HttpOnly, SameSite=Lax,
         *     host-only, Path=/, Secure on https, at most 12 h, bound to the instance, the port and the instance's current run).
         *
         *     With the cookie, every method, path and query goes to `http://localhost:{port}{path}?{query}` inside the instance
         *     exactly as sent, with no path prefix: Authorization and the app's own cookies are passed through, only `gpr_app`
         *     is removed. Streamed responses, server-sent events, WebSockets and request bodies up to 512 MB work as on the proxy.
         *
         *     Refusals are a short HTML page, or `{error, message}` when the request accepts JSON and not HTML. The app session
         *     ends when the instance stops (409 not_running until it is started; then 401), is started again or destroyed, and
         *     when the key or the session that opened it is revoked or signs out. These origins have their own per-IP request
         *     budget (APPS_RATE_LIMIT_RPS, 200 a second).
         */
        put: {
            parameters: {
                query?: {
                    /** @description The one-time ticket of an opened app's address (valid 60 s) */
                    gpr_ticket?: string;
                };
                header?: never;
                path: {
                    /** @description Any path, slashes included, passed on exactly as sent (with the query) */
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A ticket redeemed: to the same address without it, with the app's session cookie */
                302: {
                    headers: {
                        /** @description gpr_app=gpa_...; Max-Age=43200; Path=/; HttpOnly; SameSite=Lax; Secure */
                        "set-cookie": string;
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No app session, or one that has ended; a ticket used already, expired, or of another app (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The host names no app: not {instance id}-{port} with a port from 1 to 65535 (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The instance is stopped or not running yet (not_running) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description Request body larger than 512 MB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description More than APPS_RATE_LIMIT_RPS requests a second from this address (rate_limited); Retry-After says when to retry */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description Nothing answers on the port yet, or the host is offline (upstream_unavailable) */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The response of the app inside the instance, passed through unchanged */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /**
         * POST on an instance web app's own origin
         * @description Every (instance, port) has an origin of its own, so an app's JavaScript never runs on the API's origin.
         *     POST /v1/instances/{id}/ports/{port}/open gives its address with a one-time ticket; the first request with the
         *     ticket is answered 302 to the same address without it, setting the cookie `gpr_app` (HttpOnly, SameSite=Lax,
         *     host-only, Path=/, Secure on https, at most 12 h, bound to the instance, the port and the instance's current run).
         *
         *     With the cookie, every method, path and query goes to `http://localhost:{port}{path}?{query}` inside the instance
         *     exactly as sent, with no path prefix: Authorization and the app's own cookies are passed through, only `gpr_app`
         *     is removed. Streamed responses, server-sent events, WebSockets and request bodies up to 512 MB work as on the proxy.
         *
         *     Refusals are a short HTML page, or `{error, message}` when the request accepts JSON and not HTML. The app session
         *     ends when the instance stops (409 not_running until it is started; then 401), is started again or destroyed, and
         *     when the key or the session that opened it is revoked or signs out. These origins have their own per-IP request
         *     budget (APPS_RATE_LIMIT_RPS, 200 a second).
         */
        post: {
            parameters: {
                query?: {
                    /** @description The one-time ticket of an opened app's address (valid 60 s) */
                    gpr_ticket?: string;
                };
                header?: never;
                path: {
                    /** @description Any path, slashes included, passed on exactly as sent (with the query) */
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A ticket redeemed: to the same address without it, with the app's session cookie */
                302: {
                    headers: {
                        /** @description gpr_app=gpa_...; Max-Age=43200; Path=/; HttpOnly; SameSite=Lax; Secure */
                        "set-cookie": string;
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No app session, or one that has ended; a ticket used already, expired, or of another app (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The host names no app: not {instance id}-{port} with a port from 1 to 65535 (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The instance is stopped or not running yet (not_running) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description Request body larger than 512 MB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description More than APPS_RATE_LIMIT_RPS requests a second from this address (rate_limited); Retry-After says when to retry */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description Nothing answers on the port yet, or the host is offline (upstream_unavailable) */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The response of the app inside the instance, passed through unchanged */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /**
         * DELETE on an instance web app's own origin
         * @description Every (instance, port) has an origin of its own, so an app's JavaScript never runs on the API's origin.
         *     POST /v1/instances/{id}/ports/{port}/open gives its address with a one-time ticket; the first request with the
         *     ticket is answered 302 to the same address without it, setting the cookie `gpr_app` (HttpOnly, SameSite=Lax,
         *     host-only, Path=/, Secure on https, at most 12 h, bound to the instance, the port and the instance's current run).
         *
         *     With the cookie, every method, path and query goes to `http://localhost:{port}{path}?{query}` inside the instance
         *     exactly as sent, with no path prefix: Authorization and the app's own cookies are passed through, only `gpr_app`
         *     is removed. Streamed responses, server-sent events, WebSockets and request bodies up to 512 MB work as on the proxy.
         *
         *     Refusals are a short HTML page, or `{error, message}` when the request accepts JSON and not HTML. The app session
         *     ends when the instance stops (409 not_running until it is started; then 401), is started again or destroyed, and
         *     when the key or the session that opened it is revoked or signs out. These origins have their own per-IP request
         *     budget (APPS_RATE_LIMIT_RPS, 200 a second).
         */
        delete: {
            parameters: {
                query?: {
                    /** @description The one-time ticket of an opened app's address (valid 60 s) */
                    gpr_ticket?: string;
                };
                header?: never;
                path: {
                    /** @description Any path, slashes included, passed on exactly as sent (with the query) */
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A ticket redeemed: to the same address without it, with the app's session cookie */
                302: {
                    headers: {
                        /** @description gpr_app=gpa_...; Max-Age=43200; Path=/; HttpOnly; SameSite=Lax; Secure */
                        "set-cookie": string;
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No app session, or one that has ended; a ticket used already, expired, or of another app (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The host names no app: not {instance id}-{port} with a port from 1 to 65535 (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The instance is stopped or not running yet (not_running) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description Request body larger than 512 MB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description More than APPS_RATE_LIMIT_RPS requests a second from this address (rate_limited); Retry-After says when to retry */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description Nothing answers on the port yet, or the host is offline (upstream_unavailable) */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The response of the app inside the instance, passed through unchanged */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /**
         * OPTIONS on an instance web app's own origin
         * @description Every (instance, port) has an origin of its own, so an app's JavaScript never runs on the API's origin.
         *     POST /v1/instances/{id}/ports/{port}/open gives its address with a one-time ticket; the first request with the
         *     ticket is answered 302 to the same address without it, setting the cookie `gpr_app` (HttpOnly, SameSite=Lax,
         *     host-only, Path=/, Secure on https, at most 12 h, bound to the instance, the port and the instance's current run).
         *
         *     With the cookie, every method, path and query goes to `http://localhost:{port}{path}?{query}` inside the instance
         *     exactly as sent, with no path prefix: Authorization and the app's own cookies are passed through, only `gpr_app`
         *     is removed. Streamed responses, server-sent events, WebSockets and request bodies up to 512 MB work as on the proxy.
         *
         *     Refusals are a short HTML page, or `{error, message}` when the request accepts JSON and not HTML. The app session
         *     ends when the instance stops (409 not_running until it is started; then 401), is started again or destroyed, and
         *     when the key or the session that opened it is revoked or signs out. These origins have their own per-IP request
         *     budget (APPS_RATE_LIMIT_RPS, 200 a second).
         */
        options: {
            parameters: {
                query?: {
                    /** @description The one-time ticket of an opened app's address (valid 60 s) */
                    gpr_ticket?: string;
                };
                header?: never;
                path: {
                    /** @description Any path, slashes included, passed on exactly as sent (with the query) */
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A ticket redeemed: to the same address without it, with the app's session cookie */
                302: {
                    headers: {
                        /** @description gpr_app=gpa_...; Max-Age=43200; Path=/; HttpOnly; SameSite=Lax; Secure */
                        "set-cookie": string;
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No app session, or one that has ended; a ticket used already, expired, or of another app (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The host names no app: not {instance id}-{port} with a port from 1 to 65535 (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The instance is stopped or not running yet (not_running) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description Request body larger than 512 MB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description More than APPS_RATE_LIMIT_RPS requests a second from this address (rate_limited); Retry-After says when to retry */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description Nothing answers on the port yet, or the host is offline (upstream_unavailable) */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The response of the app inside the instance, passed through unchanged */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /**
         * HEAD on an instance web app's own origin
         * @description Every (instance, port) has an origin of its own, so an app's JavaScript never runs on the API's origin.
         *     POST /v1/instances/{id}/ports/{port}/open gives its address with a one-time ticket; the first request with the
         *     ticket is answered 302 to the same address without it, setting the cookie `gpr_app` (HttpOnly, SameSite=Lax,
         *     host-only, Path=/, Secure on https, at most 12 h, bound to the instance, the port and the instance's current run).
         *
         *     With the cookie, every method, path and query goes to `http://localhost:{port}{path}?{query}` inside the instance
         *     exactly as sent, with no path prefix: Authorization and the app's own cookies are passed through, only `gpr_app`
         *     is removed. Streamed responses, server-sent events, WebSockets and request bodies up to 512 MB work as on the proxy.
         *
         *     Refusals are a short HTML page, or `{error, message}` when the request accepts JSON and not HTML. The app session
         *     ends when the instance stops (409 not_running until it is started; then 401), is started again or destroyed, and
         *     when the key or the session that opened it is revoked or signs out. These origins have their own per-IP request
         *     budget (APPS_RATE_LIMIT_RPS, 200 a second).
         */
        head: {
            parameters: {
                query?: {
                    /** @description The one-time ticket of an opened app's address (valid 60 s) */
                    gpr_ticket?: string;
                };
                header?: never;
                path: {
                    /** @description Any path, slashes included, passed on exactly as sent (with the query) */
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A ticket redeemed: to the same address without it, with the app's session cookie */
                302: {
                    headers: {
                        /** @description gpr_app=gpa_...; Max-Age=43200; Path=/; HttpOnly; SameSite=Lax; Secure */
                        "set-cookie": string;
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No app session, or one that has ended; a ticket used already, expired, or of another app (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The host names no app: not {instance id}-{port} with a port from 1 to 65535 (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The instance is stopped or not running yet (not_running) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description Request body larger than 512 MB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description More than APPS_RATE_LIMIT_RPS requests a second from this address (rate_limited); Retry-After says when to retry */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description Nothing answers on the port yet, or the host is offline (upstream_unavailable) */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The response of the app inside the instance, passed through unchanged */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        /**
         * PATCH on an instance web app's own origin
         * @description Every (instance, port) has an origin of its own, so an app's JavaScript never runs on the API's origin.
         *     POST /v1/instances/{id}/ports/{port}/open gives its address with a one-time ticket; the first request with the
         *     ticket is answered 302 to the same address without it, setting the cookie `gpr_app` (HttpOnly, SameSite=Lax,
         *     host-only, Path=/, Secure on https, at most 12 h, bound to the instance, the port and the instance's current run).
         *
         *     With the cookie, every method, path and query goes to `http://localhost:{port}{path}?{query}` inside the instance
         *     exactly as sent, with no path prefix: Authorization and the app's own cookies are passed through, only `gpr_app`
         *     is removed. Streamed responses, server-sent events, WebSockets and request bodies up to 512 MB work as on the proxy.
         *
         *     Refusals are a short HTML page, or `{error, message}` when the request accepts JSON and not HTML. The app session
         *     ends when the instance stops (409 not_running until it is started; then 401), is started again or destroyed, and
         *     when the key or the session that opened it is revoked or signs out. These origins have their own per-IP request
         *     budget (APPS_RATE_LIMIT_RPS, 200 a second).
         */
        patch: {
            parameters: {
                query?: {
                    /** @description The one-time ticket of an opened app's address (valid 60 s) */
                    gpr_ticket?: string;
                };
                header?: never;
                path: {
                    /** @description Any path, slashes included, passed on exactly as sent (with the query) */
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A ticket redeemed: to the same address without it, with the app's session cookie */
                302: {
                    headers: {
                        /** @description gpr_app=gpa_...; Max-Age=43200; Path=/; HttpOnly; SameSite=Lax; Secure */
                        "set-cookie": string;
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description No app session, or one that has ended; a ticket used already, expired, or of another app (unauthorized) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The host names no app: not {instance id}-{port} with a port from 1 to 65535 (not_found) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The instance is stopped or not running yet (not_running) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description Request body larger than 512 MB (payload_too_large) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description More than APPS_RATE_LIMIT_RPS requests a second from this address (rate_limited); Retry-After says when to retry */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description Nothing answers on the port yet, or the host is offline (upstream_unavailable) */
                502: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                        "text/html": string;
                    };
                };
                /** @description The response of the app inside the instance, passed through unchanged */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        AdminAccount: {
            id: string;
            referral_code: string;
            /**
             * Format: date-time
             * @example 2026-11-21T12:00:00.000Z
             */
            created_at: string;
            email: string | null;
            balance_micros: number;
        };
        Balance: {
            balance_micros: number;
        };
        Catalog: {
            gpus: components["schemas"]["Gpu"][];
            templates: components["schemas"]["Template"][];
            models: components["schemas"]["Model"][];
        };
        CreateAccount: {
            balance_micros?: number;
        };
        CreateKey: {
            name?: string;
        };
        CreateMachine: {
            name?: string;
        };
        CreatedKey: {
            id: string;
            /** @description The key itself: shown this once */
            key: string;
            name: string;
            prefix: string;
            /**
             * Format: date-time
             * @example 2026-11-21T12:00:00.000Z
             */
            created_at: string;
        };
        CreatedMachine: {
            id: number;
            agent_token: string;
        };
        Credentials: {
            /** @example ada@example.com */
            email: string;
            /** @example correct horse battery */
            password: string;
        };
        Credit: {
            amount_micros: number;
            note?: string;
        };
        Error: {
            /** @example invalid */
            error: string;
            /** @example gpu_count: must be an integer from 1 to 8 */
            message: string;
        };
        EventList: {
            items: {
                message: string;
                /**
                 * Format: date-time
                 * @example 2026-11-21T12:00:00.000Z
                 */
                created_at: string;
            }[];
        };
        Gpu: {
            /** @example rtx4090 */
            model: string;
            /** @example NVIDIA GeForce RTX 4090 */
            display_name: string;
            vram_gb: number;
            price_hour_micros: number;
            /** @example consumer */
            tier: string;
            /** @example ada */
            arch: string;
            free_gpus: number;
            max_per_server: number;
        };
        GpuList: {
            gpus: components["schemas"]["Gpu"][];
        };
        GpuModel: {
            /** @example rtx4090 */
            model: string;
            /** @example NVIDIA GeForce RTX 4090 */
            display_name: string;
            vram_gb: number;
            price_hour_micros: number;
            /** @example consumer */
            tier: string;
            /** @example ada */
            arch: string;
        };
        GpuModelBody: {
            display_name: string;
            vram_gb: number;
            price_hour_micros: number;
            tier: string;
            arch: string;
        };
        Instance: {
            /** @example i-abcdefghijklmnop */
            id: string;
            label: string;
            /** @enum {string} */
            status: "creating" | "starting" | "running" | "stopped" | "error" | "destroyed";
            status_message: string;
            /** @enum {string} */
            desired_state: "running" | "stopped" | "destroyed";
            gpu_model: string;
            gpu_count: number;
            template: string;
            model: string;
            image: string;
            disk_gb: number;
            ports: components["schemas"]["InstancePort"][];
            env: {
                [key: string]: string;
            };
            token: string;
            price_hour_micros: number;
            machine_id: number;
            machine_online: boolean;
            /**
             * Format: date-time
             * @example 2026-11-21T12:00:00.000Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @example 2026-11-21T12:00:00.000Z
             */
            started_at: string | null;
        };
        InstanceList: {
            items: components["schemas"]["Instance"][];
        };
        InstancePort: components["schemas"]["Port"] & {
            /** @description The port answers its readiness `path` (below 500) in this run of the instance; always false for `tcp` ports */
            ready: boolean;
            /**
             * Format: date-time
             * @description Since when it is ready; null while it is not
             * @example 2026-11-21T12:00:00.000Z
             */
            ready_at: string | null;
        };
        KeyList: {
            items: {
                id: string;
                name: string;
                prefix: string;
                /**
                 * Format: date-time
                 * @example 2026-11-21T12:00:00.000Z
                 */
                created_at: string;
                /**
                 * Format: date-time
                 * @example 2026-11-21T12:00:00.000Z
                 */
                last_used_at: string | null;
            }[];
        };
        LaunchRequest: {
            gpu_model: string;
            gpu_count: number;
            template: string;
            model?: string;
            image?: string;
            disk_gb?: number;
            env?: {
                [key: string]: string;
            };
            label?: string;
        };
        LedgerPage: {
            items: {
                id: number;
                /**
                 * Format: date-time
                 * @example 2026-11-21T12:00:00.000Z
                 */
                created_at: string;
                /** @enum {string} */
                kind: "credit" | "debit" | "charge";
                /** @description Positive for credits, negative for debits and charges */
                amount_micros: number;
                balance_after_micros: number;
                /** @description The instance a charge is for; null otherwise */
                instance_id: string | null;
                note: string;
            }[];
            /** @description Pass as `cursor` for the next (older) page; null on the last page */
            next_cursor: string | null;
        };
        /** @description The JSON of one `data:` event of a log sent as server-sent events */
        LogEvent: {
            /**
             * Format: date-time
             * @description When the container wrote the line
             */
            t: string;
            /** @enum {string} */
            stream: "stdout" | "stderr";
            /** @description The line, without its line break */
            line: string;
        };
        MachineList: {
            items: {
                id: number;
                name: string;
                online: boolean;
                gpus: {
                    /** @description Priced GPU model id; "" for a GPU the agent does not know (never offered). */
                    model: string;
                    index: number;
                    /** @description The GPU's name as nvidia-smi reports it. */
                    name: string;
                }[];
                free_gpus: number;
                /**
                 * Format: date-time
                 * @example 2026-11-21T12:00:00.000Z
                 */
                last_seen_at: string | null;
                /** @description Version of the connected host agent; "" before one has connected. */
                agent_version: string;
                /** @description NVIDIA driver version the agent reported; "" when unknown. */
                driver_version: string;
                /** @description Newest CUDA version the driver supports; "" when unknown (no template is placed there). */
                cuda_version: string;
            }[];
        };
        Me: {
            account: {
                id: string;
                referral_code: string;
                /**
                 * Format: date-time
                 * @example 2026-11-21T12:00:00.000Z
                 */
                created_at: string;
                /** @description Null for accounts the operator created without one */
                email: string | null;
            };
            balance_micros: number;
        };
        Model: {
            id: string;
            hf: string;
            name: string;
            kind: string;
            params: string;
            license: string;
            min_vram_gb: number;
            tier: string;
            gated: boolean;
            tags: string[];
            description: string;
            cached: boolean;
            size_gb: number;
        };
        OpenedApp: {
            /**
             * Format: uri
             * @description The app's address on its own origin, with a one-time ticket valid 60 s: open it in the browser
             * @example https://i-abcdefghijklmnop-8888.apps.example.net/?gpr_ticket=gpt_i-abcdefghijklmnop_abcdefghijklmnopqrstuvwxyz234567
             */
            url: string;
            /**
             * Format: date-time
             * @description When the ticket expires unused
             * @example 2026-11-21T12:01:00.000Z
             */
            expires_at: string;
        };
        PasswordChange: {
            current_password: string;
            /** @example correct horse battery */
            new_password: string;
        };
        Port: {
            port: number;
            name: string;
            kind: string;
            api: string;
            path: string;
        };
        RenameRequest: {
            label: string;
        };
        Template: {
            id: string;
            category: string;
            name: string;
            description: string;
            image: string;
            ports: components["schemas"]["Port"][];
            min_vram_gb: number;
            min_cuda: string;
            disk_gb: number;
            model_kinds: string[];
            model_required: boolean;
            multi_gpu: boolean;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
