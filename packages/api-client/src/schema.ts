// Generated from the server's OpenAPI document by scripts/gen-schema.mjs: do not edit.
export interface paths {
    "/api/v1/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign in to the console: sets the session cookie and returns its CSRF token. Rate-limited per username and address, with growing waits, and per address (429 with Retry-After). */
        post: operations["login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/apps": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List apps, with their online executors */
        get: operations["listApps"];
        put?: never;
        /**
         * Create an app (admins)
         * @description The answer's accessToken is the app's executor token, shown this once: configure the app's executors with it. With useInstallationToken the app uses the installation-wide token instead (compatibility mode) and accessToken is null.
         */
        post: operations["createApp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/apps/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One app, with its online executors */
        get: operations["getApp"];
        put?: never;
        post?: never;
        /** Delete an app that no job uses (admins) */
        delete: operations["deleteApp"];
        options?: never;
        head?: never;
        /** Change an app's title, addresses or origin (admins); fields left out keep their value */
        patch: operations["updateApp"];
        trace?: never;
    };
    "/api/v1/apps/{id}/executors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The app's online executors with their last registry heartbeat and protocol generation */
        get: operations["listAppExecutors"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/apps/{id}/handlers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The handler names the app's online executors registered (the job form's suggestions)
         * @description Tickwheel executors send their handler names with each registry heartbeat; XXL-JOB executors send none, so a job may name any handler.
         */
        get: operations["listAppHandlers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/apps/{id}/rotate-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Give an app a new executor token (admins)
         * @description Answers the new token once in accessToken. The token it replaces (the app's own, or the installation token for an app in compatibility mode) stays valid until previousTokenValidUntil, so the executors can move over one by one; meanwhile the server calls each executor with the token it registered with.
         */
        post: operations["rotateAppToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List jobs, newest first */
        get: operations["listJobs"];
        put?: never;
        /** Create a job (stopped unless triggerStatus is 1) */
        post: operations["createJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/jobs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One job */
        get: operations["getJob"];
        put?: never;
        post?: never;
        /** Delete a job and its script versions (its fire records stay in the log) */
        delete: operations["deleteJob"];
        options?: never;
        head?: never;
        /** Change a job; fields left out keep their value. A running job re-plans when its schedule changes. */
        patch: operations["updateJob"];
        trace?: never;
    };
    "/api/v1/jobs/{id}/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start scheduling a job from its next fire time after now */
        post: operations["startJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/jobs/{id}/stop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop scheduling a job (it can still be triggered) */
        post: operations["stopJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/jobs/{id}/trigger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Fire a job once now, optionally with another param and among given addresses (each one of the app's known addresses) */
        post: operations["triggerJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/jobs/{id}/script/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A job's saved script versions, newest first, with their source (the last 30 are kept) */
        get: operations["listScriptVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/jobs/{id}/script": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Save a job's script with a remark: it becomes the job's script (the next run runs it) and a new version */
        put: operations["updateJobScript"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/jobs/{id}/script/versions/{versionId}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Make a saved version the job's script again (saved as the newest version; the next run runs it) */
        post: operations["restoreScriptVersion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/schedules/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The next fire times of a schedule after `from` (default now). FIX_DELAY counts from `from` as if a run ended then. */
        get: operations["previewSchedule"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fires": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List fire records, newest scheduled first, by app, job, status and scheduled time */
        get: operations["listFires"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fires/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One fire record */
        get: operations["getFire"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fires/{id}/log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One page of the run's log from fromLineNum on (at most 2,000 lines and 1 MiB), read from the executor the fire was sent to */
        get: operations["getFireLog"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fires/{id}/kill-scope": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What killFire would stop, asked of the fire's executor now: the run alone (a Tickwheel executor), or every run of the job on that executor (an XXL-JOB executor) */
        get: operations["getFireKillScope"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fires/{id}/kill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop the fire's run on the executor it was sent to, and record it killed. A Tickwheel executor stops that run alone; an XXL-JOB executor stops the job's running run and drops its queued runs too, each recorded killed when the executor reports it (see getFireKillScope) */
        post: operations["killFire"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/alarm-channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the alarm channels (admin), secrets masked */
        get: operations["listAlarmChannels"];
        put?: never;
        /** Create an alarm channel (admin): e-mail, webhook, or a DingTalk, WeCom or Feishu robot */
        post: operations["createAlarmChannel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/alarm-channels/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One alarm channel (admin), secrets masked */
        get: operations["getAlarmChannel"];
        put?: never;
        post?: never;
        /** Delete an alarm channel (admin) no job alarms through any more */
        delete: operations["deleteAlarmChannel"];
        options?: never;
        head?: never;
        /** Change an alarm channel (admin); fields left out keep their value, and so do secrets sent back as "***" */
        patch: operations["updateAlarmChannel"];
        trace?: never;
    };
    "/api/v1/alarm-channels/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a test alarm through the channel now (admin, disabled channels too) and answer whether it was taken */
        post: operations["testAlarmChannel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's own bearer tokens (names and dates; a token itself is never shown again) */
        get: operations["listApiTokens"];
        put?: never;
        /** Create a bearer token acting as the caller; the answer is the only time it is shown */
        post: operations["createApiToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tokens/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke one of the caller's own bearer tokens: it stops working at once */
        delete: operations["revokeApiToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List users by username (admins) */
        get: operations["listUsers"];
        put?: never;
        /** Create a user with a role and, for a USER, the apps they may see and operate (admins) */
        post: operations["createUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete a user with their API tokens and sessions (admins); the audit trail keeps their name */
        delete: operations["deleteUser"];
        options?: never;
        head?: never;
        /** Change a user's password, role or apps (admins); a new password or role ends the user's sessions, revokeApiTokens revokes their API tokens, and mustChangePassword (with a reset's new password) makes them change it before anything else */
        patch: operations["updateUser"];
        trace?: never;
    };
    "/api/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller: username, role and the apps they may see */
        get: operations["getCurrentUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/me/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Change the caller's own password (the current one is required); ends the caller's other sessions and clears mustChangePassword */
        post: operations["changePassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** End the console session of the request (its cookie stops working); nothing for a bearer token */
        post: operations["logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The audit trail (admins): who created, changed, started, stopped, triggered, killed or deleted what, newest first */
        get: operations["listAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/dashboard": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Apps, jobs and executors online now, and the fire figures per day of the last 7 or 30 days (UTC) with their totals */
        get: operations["getDashboard"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/settings/retention": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** How many days fire records are kept (admins) */
        get: operations["getRetentionSettings"];
        /** Change how many days fire records are kept (admins; at least 3); applies from the next sweep */
        put: operations["updateRetentionSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fires/clear": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Delete an app's or a job's finished fire records scheduled before `before` and/or beyond the newest `keepLast`; runs in flight stay */
        post: operations["clearFires"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/workflows": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List workflows, newest first */
        get: operations["listWorkflows"];
        put?: never;
        /** Create a workflow (stopped unless triggerStatus is 1) */
        post: operations["createWorkflow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/workflows/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One workflow, with its graph */
        get: operations["getWorkflow"];
        put?: never;
        post?: never;
        /** Delete a workflow (its runs and their fire records stay; runs under way finish) */
        delete: operations["deleteWorkflow"];
        options?: never;
        head?: never;
        /** Change a workflow; fields left out keep their value, nodes and edges are replaced whole. Runs under way keep the graph they started with. */
        patch: operations["updateWorkflow"];
        trace?: never;
    };
    "/api/v1/workflows/{id}/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a workflow's schedule from its next fire time after now */
        post: operations["startWorkflow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/workflows/{id}/stop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop a workflow's schedule (it can still be triggered; runs under way go on) */
        post: operations["stopWorkflow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/workflows/{id}/trigger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start one run of a workflow now, optionally with a param every node sees (SERIAL: it waits behind a running run; DISCARD: it is skipped) */
        post: operations["triggerWorkflow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/workflow-runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List workflow runs, newest first */
        get: operations["listWorkflowRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/workflow-runs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One workflow run: each node's state and fire records, and the graph it runs */
        get: operations["getWorkflowRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/workflow-runs/{id}/stop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop a run: its running nodes are killed, the nodes still waiting are marked stopped */
        post: operations["stopWorkflowRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/workflow-runs/{id}/nodes/{key}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run a failed (or stopped) node again; when it succeeds the run carries on from there (its successors skipped because of it get their turn) */
        post: operations["retryWorkflowNode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/workflow-runs/{id}/nodes/{key}/mark": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mark a failed (or stopped) node succeeded or skipped, so the run goes on past it */
        post: operations["markWorkflowNode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: never;
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    username: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: {
                            id: number;
                            username: string;
                            /**
                             * @description ADMIN: every app, users, alarm channels, settings; USER: the apps in appIds
                             * @enum {unknown}
                             */
                            role: "ADMIN" | "USER";
                            appIds: number[];
                            /** @description While true, every operation the user calls but getCurrentUser, changePassword and logout answers 403 TW_ERR_PASSWORD_CHANGE_REQUIRED; changePassword clears it */
                            mustChangePassword: boolean;
                            createdAt: number;
                            updatedAt: number;
                        };
                        /** @description Send it as X-CSRF-Token on every state-changing request made with the session cookie */
                        csrfToken: string;
                        expiresAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Too many failed sign-ins: wait the Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    listApps: {
        parameters: {
            query?: {
                /** @description Substring of the app name */
                appName?: string;
                /** @description Substring of the title */
                title?: string;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            appName: string;
                            title: string;
                            /** @enum {unknown} */
                            addressType: "AUTO" | "MANUAL";
                            /** @description MANUAL: the addresses typed in; AUTO: the last list the registry monitor wrote */
                            addressList: string[];
                            /** @description Where the app's fires go: AUTO, the addresses with a live registry heartbeat; MANUAL, the addresses typed in (called without registering) */
                            onlineAddresses: string[];
                            /** @description onlineAddresses with how the server reaches each (listAppExecutors has their heartbeats too) */
                            onlineExecutors: {
                                address: string;
                                /** @description How the server reaches it: http, called at its address; http-pull, an executor that opens no port and keeps a connection to a server node (its address is pull://<instance>/); redis, an executor that opens no port and reads its runs from a Redis stream (its address is stream://<instance>/) */
                                transport: "http" | "http-pull" | "redis";
                            }[];
                            /** @description Which executor token the app's executors use: 'app', its own (createApp and rotateAppToken answer it once); 'installation', the installation-wide token (compatibility mode: every app created before per-app tokens, or with useInstallationToken, until rotateAppToken gives it its own) */
                            credential: "app" | "installation";
                            previousTokenValidUntil: number | null;
                            /** @description Where the app was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for apps made here */
                            origin: string | null;
                            createdAt: number;
                            updatedAt: number;
                        }[];
                        /** @description Items matching the filters, over all pages */
                        total: number;
                        limit: number;
                        offset: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    createApp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    appName: string;
                    title: string;
                    /** @enum {unknown} */
                    addressType?: "AUTO" | "MANUAL";
                    /** @description Executor base URLs, http(s)://host:port/ (MANUAL apps) */
                    addressList?: string[];
                    /** @description Compatibility mode: the app's executors use the installation-wide token instead of a token of the app's own (for a fleet that cannot be reconfigured). Default false. */
                    useInstallationToken?: boolean;
                    /** @description Where the app was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for apps made here */
                    origin?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appName: string;
                        title: string;
                        /** @enum {unknown} */
                        addressType: "AUTO" | "MANUAL";
                        /** @description MANUAL: the addresses typed in; AUTO: the last list the registry monitor wrote */
                        addressList: string[];
                        /** @description Where the app's fires go: AUTO, the addresses with a live registry heartbeat; MANUAL, the addresses typed in (called without registering) */
                        onlineAddresses: string[];
                        /** @description onlineAddresses with how the server reaches each (listAppExecutors has their heartbeats too) */
                        onlineExecutors: {
                            address: string;
                            /** @description How the server reaches it: http, called at its address; http-pull, an executor that opens no port and keeps a connection to a server node (its address is pull://<instance>/); redis, an executor that opens no port and reads its runs from a Redis stream (its address is stream://<instance>/) */
                            transport: "http" | "http-pull" | "redis";
                        }[];
                        /** @description Which executor token the app's executors use: 'app', its own (createApp and rotateAppToken answer it once); 'installation', the installation-wide token (compatibility mode: every app created before per-app tokens, or with useInstallationToken, until rotateAppToken gives it its own) */
                        credential: "app" | "installation";
                        previousTokenValidUntil: number | null;
                        /** @description Where the app was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for apps made here */
                        origin: string | null;
                        createdAt: number;
                        updatedAt: number;
                        accessToken: string | null;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    getApp: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appName: string;
                        title: string;
                        /** @enum {unknown} */
                        addressType: "AUTO" | "MANUAL";
                        /** @description MANUAL: the addresses typed in; AUTO: the last list the registry monitor wrote */
                        addressList: string[];
                        /** @description Where the app's fires go: AUTO, the addresses with a live registry heartbeat; MANUAL, the addresses typed in (called without registering) */
                        onlineAddresses: string[];
                        /** @description onlineAddresses with how the server reaches each (listAppExecutors has their heartbeats too) */
                        onlineExecutors: {
                            address: string;
                            /** @description How the server reaches it: http, called at its address; http-pull, an executor that opens no port and keeps a connection to a server node (its address is pull://<instance>/); redis, an executor that opens no port and reads its runs from a Redis stream (its address is stream://<instance>/) */
                            transport: "http" | "http-pull" | "redis";
                        }[];
                        /** @description Which executor token the app's executors use: 'app', its own (createApp and rotateAppToken answer it once); 'installation', the installation-wide token (compatibility mode: every app created before per-app tokens, or with useInstallationToken, until rotateAppToken gives it its own) */
                        credential: "app" | "installation";
                        previousTokenValidUntil: number | null;
                        /** @description Where the app was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for apps made here */
                        origin: string | null;
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    deleteApp: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    updateApp: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    title?: string;
                    /** @enum {unknown} */
                    addressType?: "AUTO" | "MANUAL";
                    /** @description Executor base URLs, http(s)://host:port/ (MANUAL apps) */
                    addressList?: string[];
                    /** @description Where the app was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for apps made here */
                    origin?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appName: string;
                        title: string;
                        /** @enum {unknown} */
                        addressType: "AUTO" | "MANUAL";
                        /** @description MANUAL: the addresses typed in; AUTO: the last list the registry monitor wrote */
                        addressList: string[];
                        /** @description Where the app's fires go: AUTO, the addresses with a live registry heartbeat; MANUAL, the addresses typed in (called without registering) */
                        onlineAddresses: string[];
                        /** @description onlineAddresses with how the server reaches each (listAppExecutors has their heartbeats too) */
                        onlineExecutors: {
                            address: string;
                            /** @description How the server reaches it: http, called at its address; http-pull, an executor that opens no port and keeps a connection to a server node (its address is pull://<instance>/); redis, an executor that opens no port and reads its runs from a Redis stream (its address is stream://<instance>/) */
                            transport: "http" | "http-pull" | "redis";
                        }[];
                        /** @description Which executor token the app's executors use: 'app', its own (createApp and rotateAppToken answer it once); 'installation', the installation-wide token (compatibility mode: every app created before per-app tokens, or with useInstallationToken, until rotateAppToken gives it its own) */
                        credential: "app" | "installation";
                        previousTokenValidUntil: number | null;
                        /** @description Where the app was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for apps made here */
                        origin: string | null;
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    listAppExecutors: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** @description The base URL the executor registered, or (MANUAL apps) one of the addresses typed in for the app */
                            address: string;
                            /** @description The protocol generation it speaks: G2, G3 or G4 */
                            protocol: string;
                            /** @description Its last registry heartbeat; null for a listed address of a MANUAL app that does not register (it is called as G2) */
                            lastBeatAt: number | null;
                            /** @description How the server reaches it: http, called at its address; http-pull, an executor that opens no port and keeps a connection to a server node (its address is pull://<instance>/); redis, an executor that opens no port and reads its runs from a Redis stream (its address is stream://<instance>/) */
                            transport: "http" | "http-pull" | "redis";
                        }[];
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    listAppHandlers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The handler names the online executors of the app registered, each once, sorted (code-point order) */
                        items: string[];
                        /** @description Executors of the app online now */
                        onlineExecutors: number;
                        /** @description Those of them that sent their handler names (Tickwheel executors); XXL-JOB executors send none */
                        reportingExecutors: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    rotateAppToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Until when (epoch ms) the token being replaced stays valid, so executors can move over; at most 30 days ahead. Default: 24 hours from now. A time already past revokes it at once. */
                    previousTokenValidUntil?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appName: string;
                        title: string;
                        /** @enum {unknown} */
                        addressType: "AUTO" | "MANUAL";
                        /** @description MANUAL: the addresses typed in; AUTO: the last list the registry monitor wrote */
                        addressList: string[];
                        /** @description Where the app's fires go: AUTO, the addresses with a live registry heartbeat; MANUAL, the addresses typed in (called without registering) */
                        onlineAddresses: string[];
                        /** @description onlineAddresses with how the server reaches each (listAppExecutors has their heartbeats too) */
                        onlineExecutors: {
                            address: string;
                            /** @description How the server reaches it: http, called at its address; http-pull, an executor that opens no port and keeps a connection to a server node (its address is pull://<instance>/); redis, an executor that opens no port and reads its runs from a Redis stream (its address is stream://<instance>/) */
                            transport: "http" | "http-pull" | "redis";
                        }[];
                        /** @description Which executor token the app's executors use: 'app', its own (createApp and rotateAppToken answer it once); 'installation', the installation-wide token (compatibility mode: every app created before per-app tokens, or with useInstallationToken, until rotateAppToken gives it its own) */
                        credential: "app" | "installation";
                        previousTokenValidUntil: number | null;
                        /** @description Where the app was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for apps made here */
                        origin: string | null;
                        createdAt: number;
                        updatedAt: number;
                        accessToken: string | null;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    listJobs: {
        parameters: {
            query?: {
                appId?: number;
                /** @description Substring of the name */
                name?: string;
                /** @description Substring of the handler */
                executorHandler?: string;
                /** @description Substring of the author */
                author?: string;
                triggerStatus?: number;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            appId: number;
                            name: string;
                            author: string;
                            alarmEmail: string;
                            alarmChannelIds: number[];
                            scheduleType: string;
                            scheduleConf: string;
                            timeZone: string;
                            misfireStrategy: string;
                            executorRouteStrategy: string;
                            executorHandler: string;
                            executorParam: string;
                            executorBlockStrategy: string;
                            executorTimeout: number;
                            executorFailRetryCount: number;
                            /** @description Default FIXED, 10 s (maxDelaySeconds 600) */
                            retryBackoff: {
                                /**
                                 * @description FIXED: delaySeconds before every retry; EXPONENTIAL: delaySeconds · 2^(retry − 1), at most maxDelaySeconds
                                 * @enum {unknown}
                                 */
                                strategy: "FIXED" | "EXPONENTIAL";
                                /** @description Wait before the first retry (FIXED: before every retry) */
                                delaySeconds: number;
                                /** @description EXPONENTIAL: the longest wait; at least delaySeconds */
                                maxDelaySeconds: number;
                            };
                            alarmOn: string;
                            glueType: string;
                            glueSource: string;
                            glueRemark: string;
                            glueUpdatedAt: number;
                            childJobIds: number[];
                            /** @description Where the job was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for jobs made here */
                            origin: string | null;
                            /** @description 1 = scheduled, 0 = stopped */
                            triggerStatus: number;
                            nextFireAt: number | null;
                            createdAt: number;
                            updatedAt: number;
                        }[];
                        /** @description Items matching the filters, over all pages */
                        total: number;
                        limit: number;
                        offset: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    createJob: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    appId: number;
                    name: string;
                    author?: string;
                    /** @description Comma-separated e-mail addresses the job's alarms are mailed to (through its EMAIL channels, or every enabled one when it picks none) */
                    alarmEmail?: string;
                    /** @description The alarm channels (listAlarmChannels) a failure of this job is sent through */
                    alarmChannelIds?: number[];
                    /** @enum {unknown} */
                    scheduleType?: "NONE" | "CRON" | "FIX_RATE" | "FIX_DELAY" | "ONCE";
                    scheduleConf?: string;
                    /** @description IANA time zone of a CRON schedule */
                    timeZone?: string;
                    /** @enum {unknown} */
                    misfireStrategy?: "DO_NOTHING" | "FIRE_ONCE_NOW";
                    /** @enum {unknown} */
                    executorRouteStrategy?: "FIRST" | "LAST" | "ROUND" | "RANDOM" | "CONSISTENT_HASH" | "LEAST_FREQUENTLY_USED" | "LEAST_RECENTLY_USED" | "FAILOVER" | "BUSYOVER" | "SHARDING_BROADCAST";
                    executorHandler?: string;
                    executorParam?: string;
                    /** @enum {unknown} */
                    executorBlockStrategy?: "SERIAL_EXECUTION" | "DISCARD_LATER" | "COVER_EARLY";
                    /** @description Seconds; 0 = none */
                    executorTimeout?: number;
                    /** @description Retries of a failed, timed-out or undispatched fire, each a RETRY fire record */
                    executorFailRetryCount?: number;
                    /** @description Default FIXED, 10 s (maxDelaySeconds 600) */
                    retryBackoff?: {
                        /**
                         * @description FIXED: delaySeconds before every retry; EXPONENTIAL: delaySeconds · 2^(retry − 1), at most maxDelaySeconds
                         * @enum {unknown}
                         */
                        strategy: "FIXED" | "EXPONENTIAL";
                        /** @description Wait before the first retry (FIXED: before every retry) */
                        delaySeconds: number;
                        /** @description EXPONENTIAL: the longest wait; at least delaySeconds */
                        maxDelaySeconds: number;
                    };
                    /**
                     * @description EVERY_FAILURE: alarm each failed attempt (default); FINAL_FAILURE: only when no retry is left
                     * @enum {unknown}
                     */
                    alarmOn?: "EVERY_FAILURE" | "FINAL_FAILURE";
                    /** @enum {unknown} */
                    glueType?: "BEAN" | "GLUE_GROOVY" | "GLUE_SHELL" | "GLUE_PYTHON" | "GLUE_PYTHON2" | "GLUE_PHP" | "GLUE_NODEJS" | "GLUE_POWERSHELL";
                    glueSource?: string;
                    glueRemark?: string;
                    childJobIds?: number[];
                    /** @description Where the job was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for jobs made here */
                    origin?: string | null;
                    /** @description 1 starts the job at once; default 0 */
                    triggerStatus?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appId: number;
                        name: string;
                        author: string;
                        alarmEmail: string;
                        alarmChannelIds: number[];
                        scheduleType: string;
                        scheduleConf: string;
                        timeZone: string;
                        misfireStrategy: string;
                        executorRouteStrategy: string;
                        executorHandler: string;
                        executorParam: string;
                        executorBlockStrategy: string;
                        executorTimeout: number;
                        executorFailRetryCount: number;
                        /** @description Default FIXED, 10 s (maxDelaySeconds 600) */
                        retryBackoff: {
                            /**
                             * @description FIXED: delaySeconds before every retry; EXPONENTIAL: delaySeconds · 2^(retry − 1), at most maxDelaySeconds
                             * @enum {unknown}
                             */
                            strategy: "FIXED" | "EXPONENTIAL";
                            /** @description Wait before the first retry (FIXED: before every retry) */
                            delaySeconds: number;
                            /** @description EXPONENTIAL: the longest wait; at least delaySeconds */
                            maxDelaySeconds: number;
                        };
                        alarmOn: string;
                        glueType: string;
                        glueSource: string;
                        glueRemark: string;
                        glueUpdatedAt: number;
                        childJobIds: number[];
                        /** @description Where the job was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for jobs made here */
                        origin: string | null;
                        /** @description 1 = scheduled, 0 = stopped */
                        triggerStatus: number;
                        nextFireAt: number | null;
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description The body is larger than 4 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appId: number;
                        name: string;
                        author: string;
                        alarmEmail: string;
                        alarmChannelIds: number[];
                        scheduleType: string;
                        scheduleConf: string;
                        timeZone: string;
                        misfireStrategy: string;
                        executorRouteStrategy: string;
                        executorHandler: string;
                        executorParam: string;
                        executorBlockStrategy: string;
                        executorTimeout: number;
                        executorFailRetryCount: number;
                        /** @description Default FIXED, 10 s (maxDelaySeconds 600) */
                        retryBackoff: {
                            /**
                             * @description FIXED: delaySeconds before every retry; EXPONENTIAL: delaySeconds · 2^(retry − 1), at most maxDelaySeconds
                             * @enum {unknown}
                             */
                            strategy: "FIXED" | "EXPONENTIAL";
                            /** @description Wait before the first retry (FIXED: before every retry) */
                            delaySeconds: number;
                            /** @description EXPONENTIAL: the longest wait; at least delaySeconds */
                            maxDelaySeconds: number;
                        };
                        alarmOn: string;
                        glueType: string;
                        glueSource: string;
                        glueRemark: string;
                        glueUpdatedAt: number;
                        childJobIds: number[];
                        /** @description Where the job was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for jobs made here */
                        origin: string | null;
                        /** @description 1 = scheduled, 0 = stopped */
                        triggerStatus: number;
                        nextFireAt: number | null;
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    deleteJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    updateJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    appId?: number;
                    name?: string;
                    author?: string;
                    /** @description Comma-separated e-mail addresses the job's alarms are mailed to (through its EMAIL channels, or every enabled one when it picks none) */
                    alarmEmail?: string;
                    /** @description The alarm channels (listAlarmChannels) a failure of this job is sent through */
                    alarmChannelIds?: number[];
                    /** @enum {unknown} */
                    scheduleType?: "NONE" | "CRON" | "FIX_RATE" | "FIX_DELAY" | "ONCE";
                    scheduleConf?: string;
                    /** @description IANA time zone of a CRON schedule */
                    timeZone?: string;
                    /** @enum {unknown} */
                    misfireStrategy?: "DO_NOTHING" | "FIRE_ONCE_NOW";
                    /** @enum {unknown} */
                    executorRouteStrategy?: "FIRST" | "LAST" | "ROUND" | "RANDOM" | "CONSISTENT_HASH" | "LEAST_FREQUENTLY_USED" | "LEAST_RECENTLY_USED" | "FAILOVER" | "BUSYOVER" | "SHARDING_BROADCAST";
                    executorHandler?: string;
                    executorParam?: string;
                    /** @enum {unknown} */
                    executorBlockStrategy?: "SERIAL_EXECUTION" | "DISCARD_LATER" | "COVER_EARLY";
                    /** @description Seconds; 0 = none */
                    executorTimeout?: number;
                    /** @description Retries of a failed, timed-out or undispatched fire, each a RETRY fire record */
                    executorFailRetryCount?: number;
                    /** @description Default FIXED, 10 s (maxDelaySeconds 600) */
                    retryBackoff?: {
                        /**
                         * @description FIXED: delaySeconds before every retry; EXPONENTIAL: delaySeconds · 2^(retry − 1), at most maxDelaySeconds
                         * @enum {unknown}
                         */
                        strategy: "FIXED" | "EXPONENTIAL";
                        /** @description Wait before the first retry (FIXED: before every retry) */
                        delaySeconds: number;
                        /** @description EXPONENTIAL: the longest wait; at least delaySeconds */
                        maxDelaySeconds: number;
                    };
                    /**
                     * @description EVERY_FAILURE: alarm each failed attempt (default); FINAL_FAILURE: only when no retry is left
                     * @enum {unknown}
                     */
                    alarmOn?: "EVERY_FAILURE" | "FINAL_FAILURE";
                    /** @enum {unknown} */
                    glueType?: "BEAN" | "GLUE_GROOVY" | "GLUE_SHELL" | "GLUE_PYTHON" | "GLUE_PYTHON2" | "GLUE_PHP" | "GLUE_NODEJS" | "GLUE_POWERSHELL";
                    glueSource?: string;
                    glueRemark?: string;
                    childJobIds?: number[];
                    /** @description Where the job was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for jobs made here */
                    origin?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appId: number;
                        name: string;
                        author: string;
                        alarmEmail: string;
                        alarmChannelIds: number[];
                        scheduleType: string;
                        scheduleConf: string;
                        timeZone: string;
                        misfireStrategy: string;
                        executorRouteStrategy: string;
                        executorHandler: string;
                        executorParam: string;
                        executorBlockStrategy: string;
                        executorTimeout: number;
                        executorFailRetryCount: number;
                        /** @description Default FIXED, 10 s (maxDelaySeconds 600) */
                        retryBackoff: {
                            /**
                             * @description FIXED: delaySeconds before every retry; EXPONENTIAL: delaySeconds · 2^(retry − 1), at most maxDelaySeconds
                             * @enum {unknown}
                             */
                            strategy: "FIXED" | "EXPONENTIAL";
                            /** @description Wait before the first retry (FIXED: before every retry) */
                            delaySeconds: number;
                            /** @description EXPONENTIAL: the longest wait; at least delaySeconds */
                            maxDelaySeconds: number;
                        };
                        alarmOn: string;
                        glueType: string;
                        glueSource: string;
                        glueRemark: string;
                        glueUpdatedAt: number;
                        childJobIds: number[];
                        /** @description Where the job was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for jobs made here */
                        origin: string | null;
                        /** @description 1 = scheduled, 0 = stopped */
                        triggerStatus: number;
                        nextFireAt: number | null;
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description The body is larger than 4 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    startJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appId: number;
                        name: string;
                        author: string;
                        alarmEmail: string;
                        alarmChannelIds: number[];
                        scheduleType: string;
                        scheduleConf: string;
                        timeZone: string;
                        misfireStrategy: string;
                        executorRouteStrategy: string;
                        executorHandler: string;
                        executorParam: string;
                        executorBlockStrategy: string;
                        executorTimeout: number;
                        executorFailRetryCount: number;
                        /** @description Default FIXED, 10 s (maxDelaySeconds 600) */
                        retryBackoff: {
                            /**
                             * @description FIXED: delaySeconds before every retry; EXPONENTIAL: delaySeconds · 2^(retry − 1), at most maxDelaySeconds
                             * @enum {unknown}
                             */
                            strategy: "FIXED" | "EXPONENTIAL";
                            /** @description Wait before the first retry (FIXED: before every retry) */
                            delaySeconds: number;
                            /** @description EXPONENTIAL: the longest wait; at least delaySeconds */
                            maxDelaySeconds: number;
                        };
                        alarmOn: string;
                        glueType: string;
                        glueSource: string;
                        glueRemark: string;
                        glueUpdatedAt: number;
                        childJobIds: number[];
                        /** @description Where the job was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for jobs made here */
                        origin: string | null;
                        /** @description 1 = scheduled, 0 = stopped */
                        triggerStatus: number;
                        nextFireAt: number | null;
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    stopJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appId: number;
                        name: string;
                        author: string;
                        alarmEmail: string;
                        alarmChannelIds: number[];
                        scheduleType: string;
                        scheduleConf: string;
                        timeZone: string;
                        misfireStrategy: string;
                        executorRouteStrategy: string;
                        executorHandler: string;
                        executorParam: string;
                        executorBlockStrategy: string;
                        executorTimeout: number;
                        executorFailRetryCount: number;
                        /** @description Default FIXED, 10 s (maxDelaySeconds 600) */
                        retryBackoff: {
                            /**
                             * @description FIXED: delaySeconds before every retry; EXPONENTIAL: delaySeconds · 2^(retry − 1), at most maxDelaySeconds
                             * @enum {unknown}
                             */
                            strategy: "FIXED" | "EXPONENTIAL";
                            /** @description Wait before the first retry (FIXED: before every retry) */
                            delaySeconds: number;
                            /** @description EXPONENTIAL: the longest wait; at least delaySeconds */
                            maxDelaySeconds: number;
                        };
                        alarmOn: string;
                        glueType: string;
                        glueSource: string;
                        glueRemark: string;
                        glueUpdatedAt: number;
                        childJobIds: number[];
                        /** @description Where the job was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for jobs made here */
                        origin: string | null;
                        /** @description 1 = scheduled, 0 = stopped */
                        triggerStatus: number;
                        nextFireAt: number | null;
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    triggerJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Replaces the job's param for this run */
                    executorParam?: string;
                    /** @description Executors to route among instead of the online ones; each must be one of the app's known addresses */
                    addressList?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The fire records the trigger created */
                        fireIds: number[];
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description The body is larger than 4 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    listScriptVersions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Newest first; the last 30 are kept */
                        items: {
                            id: number;
                            jobId: number;
                            glueType: string;
                            glueSource: string;
                            glueRemark: string;
                            createdAt: number;
                        }[];
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    updateJobScript: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The script's language; default the job's own (a BEAN job must name one)
                     * @enum {unknown}
                     */
                    glueType?: "GLUE_GROOVY" | "GLUE_SHELL" | "GLUE_PYTHON" | "GLUE_PYTHON2" | "GLUE_PHP" | "GLUE_NODEJS" | "GLUE_POWERSHELL";
                    glueSource: string;
                    /** @description What changed, in a few words */
                    glueRemark: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appId: number;
                        name: string;
                        author: string;
                        alarmEmail: string;
                        alarmChannelIds: number[];
                        scheduleType: string;
                        scheduleConf: string;
                        timeZone: string;
                        misfireStrategy: string;
                        executorRouteStrategy: string;
                        executorHandler: string;
                        executorParam: string;
                        executorBlockStrategy: string;
                        executorTimeout: number;
                        executorFailRetryCount: number;
                        /** @description Default FIXED, 10 s (maxDelaySeconds 600) */
                        retryBackoff: {
                            /**
                             * @description FIXED: delaySeconds before every retry; EXPONENTIAL: delaySeconds · 2^(retry − 1), at most maxDelaySeconds
                             * @enum {unknown}
                             */
                            strategy: "FIXED" | "EXPONENTIAL";
                            /** @description Wait before the first retry (FIXED: before every retry) */
                            delaySeconds: number;
                            /** @description EXPONENTIAL: the longest wait; at least delaySeconds */
                            maxDelaySeconds: number;
                        };
                        alarmOn: string;
                        glueType: string;
                        glueSource: string;
                        glueRemark: string;
                        glueUpdatedAt: number;
                        childJobIds: number[];
                        /** @description Where the job was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for jobs made here */
                        origin: string | null;
                        /** @description 1 = scheduled, 0 = stopped */
                        triggerStatus: number;
                        nextFireAt: number | null;
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description The body is larger than 4 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    restoreScriptVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
                versionId: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appId: number;
                        name: string;
                        author: string;
                        alarmEmail: string;
                        alarmChannelIds: number[];
                        scheduleType: string;
                        scheduleConf: string;
                        timeZone: string;
                        misfireStrategy: string;
                        executorRouteStrategy: string;
                        executorHandler: string;
                        executorParam: string;
                        executorBlockStrategy: string;
                        executorTimeout: number;
                        executorFailRetryCount: number;
                        /** @description Default FIXED, 10 s (maxDelaySeconds 600) */
                        retryBackoff: {
                            /**
                             * @description FIXED: delaySeconds before every retry; EXPONENTIAL: delaySeconds · 2^(retry − 1), at most maxDelaySeconds
                             * @enum {unknown}
                             */
                            strategy: "FIXED" | "EXPONENTIAL";
                            /** @description Wait before the first retry (FIXED: before every retry) */
                            delaySeconds: number;
                            /** @description EXPONENTIAL: the longest wait; at least delaySeconds */
                            maxDelaySeconds: number;
                        };
                        alarmOn: string;
                        glueType: string;
                        glueSource: string;
                        glueRemark: string;
                        glueUpdatedAt: number;
                        childJobIds: number[];
                        /** @description Where the job was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for jobs made here */
                        origin: string | null;
                        /** @description 1 = scheduled, 0 = stopped */
                        triggerStatus: number;
                        nextFireAt: number | null;
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    previewSchedule: {
        parameters: {
            query: {
                scheduleType: "NONE" | "CRON" | "FIX_RATE" | "FIX_DELAY" | "ONCE";
                scheduleConf?: string;
                timeZone?: string;
                count?: number;
                from?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        from: number;
                        /** @description Ascending; empty when the schedule never fires again (and always for NONE) */
                        nextFireTimes: number[];
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    listFires: {
        parameters: {
            query?: {
                appId?: number;
                jobId?: number;
                /** @description One status, or several (repeat the parameter) */
                status?: ("pending" | "dispatched" | "dispatch_failed" | "succeeded" | "failed" | "timeout" | "killed" | "skipped")[];
                /** @description scheduledAt >= from (epoch ms) */
                from?: number;
                /** @description scheduledAt < to (epoch ms) */
                to?: number;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            jobId: number;
                            appId: number;
                            parentFireId: number | null;
                            scheduledAt: number;
                            triggerAt: number | null;
                            triggerType: string;
                            executorAddress: string | null;
                            executorHandler: string;
                            executorParam: string | null;
                            shardIndex: number;
                            shardTotal: number;
                            triggerCode: number | null;
                            triggerMsg: string | null;
                            handleAt: number | null;
                            handleCode: number | null;
                            handleMsg: string | null;
                            /** @description pending | dispatched | dispatch_failed | succeeded | failed | timeout | killed | skipped */
                            status: string;
                            /** @description Retries this fire may still get */
                            retryCount: number;
                            retryFireId: number | null;
                            triggeredByFireId: number | null;
                            /**
                             * @description NONE: not alarmed; SENT: every alarm channel took it; FAILED: one did not (see alarmMsg)
                             * @enum {unknown}
                             */
                            alarmStatus: "NONE" | "SENT" | "FAILED";
                            alarmMsg: string | null;
                            workflowRunId: number | null;
                            workflowNodeKey: string | null;
                            /** @description A workflow node's output, as its handler returned it */
                            output?: unknown;
                        }[];
                        /** @description Items matching the filters, over all pages */
                        total: number;
                        limit: number;
                        offset: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    getFire: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        jobId: number;
                        appId: number;
                        parentFireId: number | null;
                        scheduledAt: number;
                        triggerAt: number | null;
                        triggerType: string;
                        executorAddress: string | null;
                        executorHandler: string;
                        executorParam: string | null;
                        shardIndex: number;
                        shardTotal: number;
                        triggerCode: number | null;
                        triggerMsg: string | null;
                        handleAt: number | null;
                        handleCode: number | null;
                        handleMsg: string | null;
                        /** @description pending | dispatched | dispatch_failed | succeeded | failed | timeout | killed | skipped */
                        status: string;
                        /** @description Retries this fire may still get */
                        retryCount: number;
                        retryFireId: number | null;
                        triggeredByFireId: number | null;
                        /**
                         * @description NONE: not alarmed; SENT: every alarm channel took it; FAILED: one did not (see alarmMsg)
                         * @enum {unknown}
                         */
                        alarmStatus: "NONE" | "SENT" | "FAILED";
                        alarmMsg: string | null;
                        workflowRunId: number | null;
                        workflowNodeKey: string | null;
                        /** @description A workflow node's output, as its handler returned it */
                        output?: unknown;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    getFireLog: {
        parameters: {
            query?: {
                fromLineNum?: number;
            };
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        fromLineNum: number;
                        /** @description Ask for toLineNum + 1 next */
                        toLineNum: number;
                        logContent: string;
                        /** @description True when the run is over and every line was read */
                        isEnd: boolean;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description The executor did not answer as it should */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    getFireKillScope: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description run: the executor stops this fire's run alone (a Tickwheel executor). job: it stops the job's running run and drops every run of the job queued on it (an XXL-JOB executor's kill acts per job); each is recorded killed */
                        scope: "run" | "job";
                        executorAddress: string;
                        jobId: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description The executor did not answer as it should */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    killFire: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        jobId: number;
                        appId: number;
                        parentFireId: number | null;
                        scheduledAt: number;
                        triggerAt: number | null;
                        triggerType: string;
                        executorAddress: string | null;
                        executorHandler: string;
                        executorParam: string | null;
                        shardIndex: number;
                        shardTotal: number;
                        triggerCode: number | null;
                        triggerMsg: string | null;
                        handleAt: number | null;
                        handleCode: number | null;
                        handleMsg: string | null;
                        /** @description pending | dispatched | dispatch_failed | succeeded | failed | timeout | killed | skipped */
                        status: string;
                        /** @description Retries this fire may still get */
                        retryCount: number;
                        retryFireId: number | null;
                        triggeredByFireId: number | null;
                        /**
                         * @description NONE: not alarmed; SENT: every alarm channel took it; FAILED: one did not (see alarmMsg)
                         * @enum {unknown}
                         */
                        alarmStatus: "NONE" | "SENT" | "FAILED";
                        alarmMsg: string | null;
                        workflowRunId: number | null;
                        workflowNodeKey: string | null;
                        /** @description A workflow node's output, as its handler returned it */
                        output?: unknown;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description The executor did not answer as it should */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    listAlarmChannels: {
        parameters: {
            query?: {
                type?: "EMAIL" | "WEBHOOK" | "DINGTALK" | "WECOM" | "FEISHU";
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            name: string;
                            /** @description EMAIL | WEBHOOK | DINGTALK | WECOM | FEISHU */
                            type: string;
                            enabled: boolean;
                            /** @description The type's settings. EMAIL: host, port, security (STARTTLS | TLS | NONE), username, password, from, to[], rejectUnauthorized. WEBHOOK: url, secret. DINGTALK: url, secret, msgType (markdown | text), atMobiles[], atAll. WECOM: url, msgType (markdown | text), mentionedMobiles[]. FEISHU: url, secret, msgType (post | text). Answers show password and secret as "***" and the tokens in URLs masked; send them back unchanged to keep them. */
                            config: {
                                [key: string]: unknown;
                            };
                            createdAt: number;
                            updatedAt: number;
                        }[];
                        /** @description Items matching the filters, over all pages */
                        total: number;
                        limit: number;
                        offset: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    createAlarmChannel: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @enum {unknown} */
                    type: "EMAIL" | "WEBHOOK" | "DINGTALK" | "WECOM" | "FEISHU";
                    /** @default true */
                    enabled?: boolean;
                    /** @description The type's settings. EMAIL: host, port, security (STARTTLS | TLS | NONE), username, password, from, to[], rejectUnauthorized. WEBHOOK: url, secret. DINGTALK: url, secret, msgType (markdown | text), atMobiles[], atAll. WECOM: url, msgType (markdown | text), mentionedMobiles[]. FEISHU: url, secret, msgType (post | text). Answers show password and secret as "***" and the tokens in URLs masked; send them back unchanged to keep them. */
                    config: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        /** @description EMAIL | WEBHOOK | DINGTALK | WECOM | FEISHU */
                        type: string;
                        enabled: boolean;
                        /** @description The type's settings. EMAIL: host, port, security (STARTTLS | TLS | NONE), username, password, from, to[], rejectUnauthorized. WEBHOOK: url, secret. DINGTALK: url, secret, msgType (markdown | text), atMobiles[], atAll. WECOM: url, msgType (markdown | text), mentionedMobiles[]. FEISHU: url, secret, msgType (post | text). Answers show password and secret as "***" and the tokens in URLs masked; send them back unchanged to keep them. */
                        config: {
                            [key: string]: unknown;
                        };
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    getAlarmChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        /** @description EMAIL | WEBHOOK | DINGTALK | WECOM | FEISHU */
                        type: string;
                        enabled: boolean;
                        /** @description The type's settings. EMAIL: host, port, security (STARTTLS | TLS | NONE), username, password, from, to[], rejectUnauthorized. WEBHOOK: url, secret. DINGTALK: url, secret, msgType (markdown | text), atMobiles[], atAll. WECOM: url, msgType (markdown | text), mentionedMobiles[]. FEISHU: url, secret, msgType (post | text). Answers show password and secret as "***" and the tokens in URLs masked; send them back unchanged to keep them. */
                        config: {
                            [key: string]: unknown;
                        };
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    deleteAlarmChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    updateAlarmChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /** @enum {unknown} */
                    type?: "EMAIL" | "WEBHOOK" | "DINGTALK" | "WECOM" | "FEISHU";
                    enabled?: boolean;
                    /** @description Settings to change: given fields replace the stored ones, null removes one, "***" (or a masked URL as answered) keeps it; a new type needs its whole config */
                    config?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        /** @description EMAIL | WEBHOOK | DINGTALK | WECOM | FEISHU */
                        type: string;
                        enabled: boolean;
                        /** @description The type's settings. EMAIL: host, port, security (STARTTLS | TLS | NONE), username, password, from, to[], rejectUnauthorized. WEBHOOK: url, secret. DINGTALK: url, secret, msgType (markdown | text), atMobiles[], atAll. WECOM: url, msgType (markdown | text), mentionedMobiles[]. FEISHU: url, secret, msgType (post | text). Answers show password and secret as "***" and the tokens in URLs masked; send them back unchanged to keep them. */
                        config: {
                            [key: string]: unknown;
                        };
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    testAlarmChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description EMAIL: comma-separated addresses to send the test to, besides the channel's own `to` */
                    alarmEmail?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The channel took the test alarm */
                        sent: boolean;
                        error: string | null;
                        durationMs: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    listApiTokens: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            name: string;
                            createdAt: number;
                            lastUsedAt: number | null;
                        }[];
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    createApiToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        /** @description The bearer token. Shown once: only its hash is stored. */
                        token: string;
                        createdAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    revokeApiToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
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
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    listUsers: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            username: string;
                            /**
                             * @description ADMIN: every app, users, alarm channels, settings; USER: the apps in appIds
                             * @enum {unknown}
                             */
                            role: "ADMIN" | "USER";
                            appIds: number[];
                            /** @description While true, every operation the user calls but getCurrentUser, changePassword and logout answers 403 TW_ERR_PASSWORD_CHANGE_REQUIRED; changePassword clears it */
                            mustChangePassword: boolean;
                            createdAt: number;
                            updatedAt: number;
                        }[];
                        /** @description Items matching the filters, over all pages */
                        total: number;
                        limit: number;
                        offset: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    createUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    username: string;
                    password: string;
                    /**
                     * @default USER
                     * @enum {unknown}
                     */
                    role?: "ADMIN" | "USER";
                    /** @description The apps a USER may see and operate (ignored for ADMIN) */
                    appIds?: number[];
                    /** @description The user must change their password (changePassword) before anything else, e.g. one an admin or an importer chose. Default false. */
                    mustChangePassword?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        username: string;
                        /**
                         * @description ADMIN: every app, users, alarm channels, settings; USER: the apps in appIds
                         * @enum {unknown}
                         */
                        role: "ADMIN" | "USER";
                        appIds: number[];
                        /** @description While true, every operation the user calls but getCurrentUser, changePassword and logout answers 403 TW_ERR_PASSWORD_CHANGE_REQUIRED; changePassword clears it */
                        mustChangePassword: boolean;
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    deleteUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    updateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    password?: string;
                    /**
                     * @description ADMIN: every app, users, alarm channels, settings; USER: the apps in appIds
                     * @enum {unknown}
                     */
                    role?: "ADMIN" | "USER";
                    /** @description The apps a USER may see and operate (ignored for ADMIN) */
                    appIds?: number[];
                    /** @description Set (with a new password, for a reset) or clear the need to change the password before anything else; left out, it stays as it is */
                    mustChangePassword?: boolean;
                    /** @description Also revoke every API token of the user, at once (scripts using them get 401): for a password reset after the account may have been taken over. Default false: the tokens keep working, with the user's new role. */
                    revokeApiTokens?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        username: string;
                        /**
                         * @description ADMIN: every app, users, alarm channels, settings; USER: the apps in appIds
                         * @enum {unknown}
                         */
                        role: "ADMIN" | "USER";
                        appIds: number[];
                        /** @description While true, every operation the user calls but getCurrentUser, changePassword and logout answers 403 TW_ERR_PASSWORD_CHANGE_REQUIRED; changePassword clears it */
                        mustChangePassword: boolean;
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    getCurrentUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        username: string;
                        /**
                         * @description ADMIN: every app, users, alarm channels, settings; USER: the apps in appIds
                         * @enum {unknown}
                         */
                        role: "ADMIN" | "USER";
                        appIds: number[];
                        /** @description While true, every operation the user calls but getCurrentUser, changePassword and logout answers 403 TW_ERR_PASSWORD_CHANGE_REQUIRED; changePassword clears it */
                        mustChangePassword: boolean;
                        createdAt: number;
                        updatedAt: number;
                        /** @description The session's CSRF token, for X-CSRF-Token (session requests only) */
                        csrfToken?: string;
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    changePassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    currentPassword: string;
                    newPassword: string;
                };
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
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Too many failed sign-ins: wait the Retry-After seconds */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    logout: {
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
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    listAudit: {
        parameters: {
            query?: {
                userId?: number;
                action?: "CREATE" | "UPDATE" | "DELETE" | "START" | "STOP" | "TRIGGER" | "KILL" | "RESTORE" | "CHANGE_PASSWORD" | "ROTATE_TOKEN" | "RETRY_NODE" | "MARK_NODE";
                targetType?: "APP" | "JOB" | "FIRE" | "USER" | "API_TOKEN" | "SCRIPT" | "ALARM_CHANNEL" | "WORKFLOW" | "WORKFLOW_RUN";
                targetId?: number;
                appId?: number;
                /** @description at >= from (epoch ms) */
                from?: number;
                /** @description at < to (epoch ms) */
                to?: number;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            at: number;
                            userId: number;
                            username: string;
                            /** @description CREATE | UPDATE | DELETE | START | STOP | TRIGGER | KILL | RESTORE | CHANGE_PASSWORD | ROTATE_TOKEN | RETRY_NODE | MARK_NODE */
                            action: string;
                            /** @description APP | JOB | FIRE | USER | API_TOKEN | SCRIPT | ALARM_CHANNEL | WORKFLOW | WORKFLOW_RUN */
                            targetType: string;
                            targetId: number | null;
                            appId: number | null;
                            /** @description What changed: field names and ids, never a password, token or script */
                            detail: {
                                [key: string]: unknown;
                            };
                        }[];
                        /** @description Items matching the filters, over all pages */
                        total: number;
                        limit: number;
                        offset: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    getDashboard: {
        parameters: {
            query?: {
                /** @description Length of the series, ending today (UTC) */
                days?: 7 | 30;
                appId?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Apps in scope (the caller's, or the one asked for) */
                        apps: number;
                        jobs: number;
                        enabledJobs: number;
                        executorsOnline: number;
                        /** @description Days in the series */
                        days: number;
                        appId?: number;
                        /** @description The whole series merged */
                        totals: {
                            /** @description Fire records scheduled in the period */
                            total: number;
                            succeeded: number;
                            failed: number;
                            timeout: number;
                            killed: number;
                            skipped: number;
                            dispatchFailed: number;
                            /** @description pending or dispatched when last computed */
                            running: number;
                            latenessP50Ms: number | null;
                            latenessP99Ms: number | null;
                            meanRunMs: number | null;
                        };
                        /** @description One entry per day, oldest first, today last; days without fires count zero */
                        series: {
                            /** @description YYYY-MM-DD, UTC */
                            day: string;
                            /** @description Fire records scheduled in the period */
                            total: number;
                            succeeded: number;
                            failed: number;
                            timeout: number;
                            killed: number;
                            skipped: number;
                            dispatchFailed: number;
                            /** @description pending or dispatched when last computed */
                            running: number;
                            latenessP50Ms: number | null;
                            latenessP99Ms: number | null;
                            meanRunMs: number | null;
                        }[];
                        computedAt: number | null;
                        /** @description Workflows in scope and their runs */
                        workflows: {
                            total: number;
                            /** @description Workflows whose schedule is on */
                            running: number;
                            /** @description Runs made today (UTC), by status */
                            runsToday: {
                                succeeded: number;
                                failed: number;
                                /** @description Running or waiting */
                                running: number;
                                stopped: number;
                            };
                        };
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    getRetentionSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Fire records scheduled more than this many days ago are deleted (default 30) */
                        retentionDays: number;
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    updateRetentionSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Fire records scheduled more than this many days ago are deleted (default 30) */
                    retentionDays: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Fire records scheduled more than this many days ago are deleted (default 30) */
                        retentionDays: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    clearFires: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Which finished records to delete: those of an app (or of one job) scheduled before `before`, and/or all but the newest `keepLast` (0: all) */
        requestBody: {
            content: {
                "application/json": {
                    appId?: number;
                    jobId?: number;
                    before?: number;
                    keepLast?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Fire records deleted */
                        deleted: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    listWorkflows: {
        parameters: {
            query?: {
                appId?: number;
                /** @description Substring of the name */
                name?: string;
                triggerStatus?: number;
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            appId: number;
                            name: string;
                            description: string;
                            scheduleType: string;
                            scheduleConf: string;
                            timeZone: string;
                            misfireStrategy: string;
                            concurrency: string;
                            nodes: {
                                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                                key: string;
                                /**
                                 * @description Default JOB
                                 * @enum {unknown}
                                 */
                                type?: "JOB" | "DECISION" | "WORKFLOW";
                                jobId?: number;
                                param?: string | null;
                                timeoutSeconds?: number | null;
                                retryCount?: number | null;
                                /** @description DECISION: a CEL expression over `run`, `upstream` and `nodes` */
                                expression?: string;
                                workflowId?: number;
                                continueOnFailure?: boolean;
                                disabled?: boolean;
                                position?: {
                                    x: number;
                                    y: number;
                                };
                            }[];
                            edges: {
                                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                                from: string;
                                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                                to: string;
                                /**
                                 * @description Default SUCCESS
                                 * @enum {unknown}
                                 */
                                condition?: "SUCCESS" | "FAILURE" | "ALWAYS";
                                /** @description From a DECISION: followed when the decision's value is this */
                                value?: string;
                            }[];
                            alarmEmail: string;
                            alarmChannelIds: number[];
                            /** @description Where the workflow was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for workflows made here */
                            origin: string | null;
                            /** @description 1 = scheduled, 0 = stopped */
                            triggerStatus: number;
                            nextFireAt: number | null;
                            createdAt: number;
                            updatedAt: number;
                        }[];
                        /** @description Items matching the filters, over all pages */
                        total: number;
                        limit: number;
                        offset: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    createWorkflow: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    appId: number;
                    name: string;
                    nodes: {
                        /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                        key: string;
                        /**
                         * @description Default JOB
                         * @enum {unknown}
                         */
                        type?: "JOB" | "DECISION" | "WORKFLOW";
                        jobId?: number;
                        param?: string | null;
                        timeoutSeconds?: number | null;
                        retryCount?: number | null;
                        /** @description DECISION: a CEL expression over `run`, `upstream` and `nodes` */
                        expression?: string;
                        workflowId?: number;
                        continueOnFailure?: boolean;
                        disabled?: boolean;
                        position?: {
                            x: number;
                            y: number;
                        };
                    }[];
                    edges: {
                        /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                        from: string;
                        /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                        to: string;
                        /**
                         * @description Default SUCCESS
                         * @enum {unknown}
                         */
                        condition?: "SUCCESS" | "FAILURE" | "ALWAYS";
                        /** @description From a DECISION: followed when the decision's value is this */
                        value?: string;
                    }[];
                    description?: string;
                    /** @enum {unknown} */
                    scheduleType?: "NONE" | "CRON" | "FIX_RATE" | "ONCE";
                    scheduleConf?: string;
                    timeZone?: string;
                    /** @enum {unknown} */
                    misfireStrategy?: "DO_NOTHING" | "FIRE_ONCE_NOW";
                    /**
                     * @description SERIAL: a new run waits for the running one; DISCARD: it is skipped; PARALLEL
                     * @enum {unknown}
                     */
                    concurrency?: "SERIAL" | "DISCARD" | "PARALLEL";
                    alarmEmail?: string;
                    alarmChannelIds?: number[];
                    /** @description Where the workflow was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for workflows made here */
                    origin?: string | null;
                    /** @description 1 starts the schedule at once; default 0 */
                    triggerStatus?: number;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appId: number;
                        name: string;
                        description: string;
                        scheduleType: string;
                        scheduleConf: string;
                        timeZone: string;
                        misfireStrategy: string;
                        concurrency: string;
                        nodes: {
                            /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                            key: string;
                            /**
                             * @description Default JOB
                             * @enum {unknown}
                             */
                            type?: "JOB" | "DECISION" | "WORKFLOW";
                            jobId?: number;
                            param?: string | null;
                            timeoutSeconds?: number | null;
                            retryCount?: number | null;
                            /** @description DECISION: a CEL expression over `run`, `upstream` and `nodes` */
                            expression?: string;
                            workflowId?: number;
                            continueOnFailure?: boolean;
                            disabled?: boolean;
                            position?: {
                                x: number;
                                y: number;
                            };
                        }[];
                        edges: {
                            /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                            from: string;
                            /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                            to: string;
                            /**
                             * @description Default SUCCESS
                             * @enum {unknown}
                             */
                            condition?: "SUCCESS" | "FAILURE" | "ALWAYS";
                            /** @description From a DECISION: followed when the decision's value is this */
                            value?: string;
                        }[];
                        alarmEmail: string;
                        alarmChannelIds: number[];
                        /** @description Where the workflow was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for workflows made here */
                        origin: string | null;
                        /** @description 1 = scheduled, 0 = stopped */
                        triggerStatus: number;
                        nextFireAt: number | null;
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description The body is larger than 4 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    getWorkflow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appId: number;
                        name: string;
                        description: string;
                        scheduleType: string;
                        scheduleConf: string;
                        timeZone: string;
                        misfireStrategy: string;
                        concurrency: string;
                        nodes: {
                            /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                            key: string;
                            /**
                             * @description Default JOB
                             * @enum {unknown}
                             */
                            type?: "JOB" | "DECISION" | "WORKFLOW";
                            jobId?: number;
                            param?: string | null;
                            timeoutSeconds?: number | null;
                            retryCount?: number | null;
                            /** @description DECISION: a CEL expression over `run`, `upstream` and `nodes` */
                            expression?: string;
                            workflowId?: number;
                            continueOnFailure?: boolean;
                            disabled?: boolean;
                            position?: {
                                x: number;
                                y: number;
                            };
                        }[];
                        edges: {
                            /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                            from: string;
                            /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                            to: string;
                            /**
                             * @description Default SUCCESS
                             * @enum {unknown}
                             */
                            condition?: "SUCCESS" | "FAILURE" | "ALWAYS";
                            /** @description From a DECISION: followed when the decision's value is this */
                            value?: string;
                        }[];
                        alarmEmail: string;
                        alarmChannelIds: number[];
                        /** @description Where the workflow was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for workflows made here */
                        origin: string | null;
                        /** @description 1 = scheduled, 0 = stopped */
                        triggerStatus: number;
                        nextFireAt: number | null;
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    deleteWorkflow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    updateWorkflow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    appId?: number;
                    name?: string;
                    nodes?: {
                        /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                        key: string;
                        /**
                         * @description Default JOB
                         * @enum {unknown}
                         */
                        type?: "JOB" | "DECISION" | "WORKFLOW";
                        jobId?: number;
                        param?: string | null;
                        timeoutSeconds?: number | null;
                        retryCount?: number | null;
                        /** @description DECISION: a CEL expression over `run`, `upstream` and `nodes` */
                        expression?: string;
                        workflowId?: number;
                        continueOnFailure?: boolean;
                        disabled?: boolean;
                        position?: {
                            x: number;
                            y: number;
                        };
                    }[];
                    edges?: {
                        /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                        from: string;
                        /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                        to: string;
                        /**
                         * @description Default SUCCESS
                         * @enum {unknown}
                         */
                        condition?: "SUCCESS" | "FAILURE" | "ALWAYS";
                        /** @description From a DECISION: followed when the decision's value is this */
                        value?: string;
                    }[];
                    description?: string;
                    /** @enum {unknown} */
                    scheduleType?: "NONE" | "CRON" | "FIX_RATE" | "ONCE";
                    scheduleConf?: string;
                    timeZone?: string;
                    /** @enum {unknown} */
                    misfireStrategy?: "DO_NOTHING" | "FIRE_ONCE_NOW";
                    /**
                     * @description SERIAL: a new run waits for the running one; DISCARD: it is skipped; PARALLEL
                     * @enum {unknown}
                     */
                    concurrency?: "SERIAL" | "DISCARD" | "PARALLEL";
                    alarmEmail?: string;
                    alarmChannelIds?: number[];
                    /** @description Where the workflow was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for workflows made here */
                    origin?: string | null;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appId: number;
                        name: string;
                        description: string;
                        scheduleType: string;
                        scheduleConf: string;
                        timeZone: string;
                        misfireStrategy: string;
                        concurrency: string;
                        nodes: {
                            /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                            key: string;
                            /**
                             * @description Default JOB
                             * @enum {unknown}
                             */
                            type?: "JOB" | "DECISION" | "WORKFLOW";
                            jobId?: number;
                            param?: string | null;
                            timeoutSeconds?: number | null;
                            retryCount?: number | null;
                            /** @description DECISION: a CEL expression over `run`, `upstream` and `nodes` */
                            expression?: string;
                            workflowId?: number;
                            continueOnFailure?: boolean;
                            disabled?: boolean;
                            position?: {
                                x: number;
                                y: number;
                            };
                        }[];
                        edges: {
                            /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                            from: string;
                            /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                            to: string;
                            /**
                             * @description Default SUCCESS
                             * @enum {unknown}
                             */
                            condition?: "SUCCESS" | "FAILURE" | "ALWAYS";
                            /** @description From a DECISION: followed when the decision's value is this */
                            value?: string;
                        }[];
                        alarmEmail: string;
                        alarmChannelIds: number[];
                        /** @description Where the workflow was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for workflows made here */
                        origin: string | null;
                        /** @description 1 = scheduled, 0 = stopped */
                        triggerStatus: number;
                        nextFireAt: number | null;
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description The body is larger than 4 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    startWorkflow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appId: number;
                        name: string;
                        description: string;
                        scheduleType: string;
                        scheduleConf: string;
                        timeZone: string;
                        misfireStrategy: string;
                        concurrency: string;
                        nodes: {
                            /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                            key: string;
                            /**
                             * @description Default JOB
                             * @enum {unknown}
                             */
                            type?: "JOB" | "DECISION" | "WORKFLOW";
                            jobId?: number;
                            param?: string | null;
                            timeoutSeconds?: number | null;
                            retryCount?: number | null;
                            /** @description DECISION: a CEL expression over `run`, `upstream` and `nodes` */
                            expression?: string;
                            workflowId?: number;
                            continueOnFailure?: boolean;
                            disabled?: boolean;
                            position?: {
                                x: number;
                                y: number;
                            };
                        }[];
                        edges: {
                            /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                            from: string;
                            /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                            to: string;
                            /**
                             * @description Default SUCCESS
                             * @enum {unknown}
                             */
                            condition?: "SUCCESS" | "FAILURE" | "ALWAYS";
                            /** @description From a DECISION: followed when the decision's value is this */
                            value?: string;
                        }[];
                        alarmEmail: string;
                        alarmChannelIds: number[];
                        /** @description Where the workflow was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for workflows made here */
                        origin: string | null;
                        /** @description 1 = scheduled, 0 = stopped */
                        triggerStatus: number;
                        nextFireAt: number | null;
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    stopWorkflow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        appId: number;
                        name: string;
                        description: string;
                        scheduleType: string;
                        scheduleConf: string;
                        timeZone: string;
                        misfireStrategy: string;
                        concurrency: string;
                        nodes: {
                            /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                            key: string;
                            /**
                             * @description Default JOB
                             * @enum {unknown}
                             */
                            type?: "JOB" | "DECISION" | "WORKFLOW";
                            jobId?: number;
                            param?: string | null;
                            timeoutSeconds?: number | null;
                            retryCount?: number | null;
                            /** @description DECISION: a CEL expression over `run`, `upstream` and `nodes` */
                            expression?: string;
                            workflowId?: number;
                            continueOnFailure?: boolean;
                            disabled?: boolean;
                            position?: {
                                x: number;
                                y: number;
                            };
                        }[];
                        edges: {
                            /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                            from: string;
                            /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                            to: string;
                            /**
                             * @description Default SUCCESS
                             * @enum {unknown}
                             */
                            condition?: "SUCCESS" | "FAILURE" | "ALWAYS";
                            /** @description From a DECISION: followed when the decision's value is this */
                            value?: string;
                        }[];
                        alarmEmail: string;
                        alarmChannelIds: number[];
                        /** @description Where the workflow was imported from (set by importers, e.g. `xxl-job mysql://db:3306/xxl_job #12`); null for workflows made here */
                        origin: string | null;
                        /** @description 1 = scheduled, 0 = stopped */
                        triggerStatus: number;
                        nextFireAt: number | null;
                        createdAt: number;
                        updatedAt: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    triggerWorkflow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The run param every node sees */
                    param?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        runId: number;
                        /**
                         * @description waiting: behind a running run of a SERIAL workflow; skipped: DISCARD while one runs
                         * @enum {unknown}
                         */
                        status: "running" | "waiting" | "skipped";
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description The body is larger than 4 MiB */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    listWorkflowRuns: {
        parameters: {
            query?: {
                workflowId?: number;
                appId?: number;
                status?: "waiting" | "running" | "succeeded" | "failed" | "stopped" | "skipped";
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            workflowId: number;
                            workflowName: string;
                            appId: number;
                            /** @enum {unknown} */
                            status: "waiting" | "running" | "succeeded" | "failed" | "stopped" | "skipped";
                            triggerType: string;
                            param: string | null;
                            scheduledAt: number;
                            startedAt: number | null;
                            finishedAt: number | null;
                            parentRunId: number | null;
                            parentNodeKey: string | null;
                        }[];
                        /** @description Items matching the filters, over all pages */
                        total: number;
                        limit: number;
                        offset: number;
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    getWorkflowRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        workflowId: number;
                        workflowName: string;
                        appId: number;
                        /** @enum {unknown} */
                        status: "waiting" | "running" | "succeeded" | "failed" | "stopped" | "skipped";
                        triggerType: string;
                        param: string | null;
                        scheduledAt: number;
                        startedAt: number | null;
                        finishedAt: number | null;
                        parentRunId: number | null;
                        parentNodeKey: string | null;
                        nodes: {
                            key: string;
                            /** @enum {unknown} */
                            type: "JOB" | "DECISION" | "WORKFLOW";
                            /** @enum {unknown} */
                            status: "waiting" | "running" | "succeeded" | "failed" | "skipped" | "stopped";
                            /** @description The node's fire records, first attempt first */
                            fireIds: number[];
                            /** @description The node's output (a JOB's handler output) */
                            output?: unknown;
                            /** @description A DECISION's value */
                            decision?: string;
                            childRunId: number | null;
                            startedAt: number | null;
                            finishedAt: number | null;
                            message: string | null;
                            markedBy: string | null;
                        }[];
                        definition: {
                            nodes: {
                                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                                key: string;
                                /**
                                 * @description Default JOB
                                 * @enum {unknown}
                                 */
                                type?: "JOB" | "DECISION" | "WORKFLOW";
                                jobId?: number;
                                param?: string | null;
                                timeoutSeconds?: number | null;
                                retryCount?: number | null;
                                /** @description DECISION: a CEL expression over `run`, `upstream` and `nodes` */
                                expression?: string;
                                workflowId?: number;
                                continueOnFailure?: boolean;
                                disabled?: boolean;
                                position?: {
                                    x: number;
                                    y: number;
                                };
                            }[];
                            edges: {
                                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                                from: string;
                                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                                to: string;
                                /**
                                 * @description Default SUCCESS
                                 * @enum {unknown}
                                 */
                                condition?: "SUCCESS" | "FAILURE" | "ALWAYS";
                                /** @description From a DECISION: followed when the decision's value is this */
                                value?: string;
                            }[];
                        };
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    stopWorkflowRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        workflowId: number;
                        workflowName: string;
                        appId: number;
                        /** @enum {unknown} */
                        status: "waiting" | "running" | "succeeded" | "failed" | "stopped" | "skipped";
                        triggerType: string;
                        param: string | null;
                        scheduledAt: number;
                        startedAt: number | null;
                        finishedAt: number | null;
                        parentRunId: number | null;
                        parentNodeKey: string | null;
                        nodes: {
                            key: string;
                            /** @enum {unknown} */
                            type: "JOB" | "DECISION" | "WORKFLOW";
                            /** @enum {unknown} */
                            status: "waiting" | "running" | "succeeded" | "failed" | "skipped" | "stopped";
                            /** @description The node's fire records, first attempt first */
                            fireIds: number[];
                            /** @description The node's output (a JOB's handler output) */
                            output?: unknown;
                            /** @description A DECISION's value */
                            decision?: string;
                            childRunId: number | null;
                            startedAt: number | null;
                            finishedAt: number | null;
                            message: string | null;
                            markedBy: string | null;
                        }[];
                        definition: {
                            nodes: {
                                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                                key: string;
                                /**
                                 * @description Default JOB
                                 * @enum {unknown}
                                 */
                                type?: "JOB" | "DECISION" | "WORKFLOW";
                                jobId?: number;
                                param?: string | null;
                                timeoutSeconds?: number | null;
                                retryCount?: number | null;
                                /** @description DECISION: a CEL expression over `run`, `upstream` and `nodes` */
                                expression?: string;
                                workflowId?: number;
                                continueOnFailure?: boolean;
                                disabled?: boolean;
                                position?: {
                                    x: number;
                                    y: number;
                                };
                            }[];
                            edges: {
                                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                                from: string;
                                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                                to: string;
                                /**
                                 * @description Default SUCCESS
                                 * @enum {unknown}
                                 */
                                condition?: "SUCCESS" | "FAILURE" | "ALWAYS";
                                /** @description From a DECISION: followed when the decision's value is this */
                                value?: string;
                            }[];
                        };
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    retryWorkflowNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        workflowId: number;
                        workflowName: string;
                        appId: number;
                        /** @enum {unknown} */
                        status: "waiting" | "running" | "succeeded" | "failed" | "stopped" | "skipped";
                        triggerType: string;
                        param: string | null;
                        scheduledAt: number;
                        startedAt: number | null;
                        finishedAt: number | null;
                        parentRunId: number | null;
                        parentNodeKey: string | null;
                        nodes: {
                            key: string;
                            /** @enum {unknown} */
                            type: "JOB" | "DECISION" | "WORKFLOW";
                            /** @enum {unknown} */
                            status: "waiting" | "running" | "succeeded" | "failed" | "skipped" | "stopped";
                            /** @description The node's fire records, first attempt first */
                            fireIds: number[];
                            /** @description The node's output (a JOB's handler output) */
                            output?: unknown;
                            /** @description A DECISION's value */
                            decision?: string;
                            childRunId: number | null;
                            startedAt: number | null;
                            finishedAt: number | null;
                            message: string | null;
                            markedBy: string | null;
                        }[];
                        definition: {
                            nodes: {
                                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                                key: string;
                                /**
                                 * @description Default JOB
                                 * @enum {unknown}
                                 */
                                type?: "JOB" | "DECISION" | "WORKFLOW";
                                jobId?: number;
                                param?: string | null;
                                timeoutSeconds?: number | null;
                                retryCount?: number | null;
                                /** @description DECISION: a CEL expression over `run`, `upstream` and `nodes` */
                                expression?: string;
                                workflowId?: number;
                                continueOnFailure?: boolean;
                                disabled?: boolean;
                                position?: {
                                    x: number;
                                    y: number;
                                };
                            }[];
                            edges: {
                                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                                from: string;
                                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                                to: string;
                                /**
                                 * @description Default SUCCESS
                                 * @enum {unknown}
                                 */
                                condition?: "SUCCESS" | "FAILURE" | "ALWAYS";
                                /** @description From a DECISION: followed when the decision's value is this */
                                value?: string;
                            }[];
                        };
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
    markWorkflowNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: number;
                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {unknown} */
                    status: "succeeded" | "skipped";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        workflowId: number;
                        workflowName: string;
                        appId: number;
                        /** @enum {unknown} */
                        status: "waiting" | "running" | "succeeded" | "failed" | "stopped" | "skipped";
                        triggerType: string;
                        param: string | null;
                        scheduledAt: number;
                        startedAt: number | null;
                        finishedAt: number | null;
                        parentRunId: number | null;
                        parentNodeKey: string | null;
                        nodes: {
                            key: string;
                            /** @enum {unknown} */
                            type: "JOB" | "DECISION" | "WORKFLOW";
                            /** @enum {unknown} */
                            status: "waiting" | "running" | "succeeded" | "failed" | "skipped" | "stopped";
                            /** @description The node's fire records, first attempt first */
                            fireIds: number[];
                            /** @description The node's output (a JOB's handler output) */
                            output?: unknown;
                            /** @description A DECISION's value */
                            decision?: string;
                            childRunId: number | null;
                            startedAt: number | null;
                            finishedAt: number | null;
                            message: string | null;
                            markedBy: string | null;
                        }[];
                        definition: {
                            nodes: {
                                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                                key: string;
                                /**
                                 * @description Default JOB
                                 * @enum {unknown}
                                 */
                                type?: "JOB" | "DECISION" | "WORKFLOW";
                                jobId?: number;
                                param?: string | null;
                                timeoutSeconds?: number | null;
                                retryCount?: number | null;
                                /** @description DECISION: a CEL expression over `run`, `upstream` and `nodes` */
                                expression?: string;
                                workflowId?: number;
                                continueOnFailure?: boolean;
                                disabled?: boolean;
                                position?: {
                                    x: number;
                                    y: number;
                                };
                            }[];
                            edges: {
                                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                                from: string;
                                /** @description Unique in the workflow: a letter, then letters, digits, _ and - */
                                to: string;
                                /**
                                 * @description Default SUCCESS
                                 * @enum {unknown}
                                 */
                                condition?: "SUCCESS" | "FAILURE" | "ALWAYS";
                                /** @description From a DECISION: followed when the decision's value is this */
                                value?: string;
                            }[];
                        };
                    };
                };
            };
            /** @description Bad input: the field and the reason are named */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No credentials, or wrong ones */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Not allowed for this user (TW_ERR_FORBIDDEN), a session request without its CSRF token (TW_ERR_CSRF), or a user who must change their password first (TW_ERR_PASSWORD_CHANGE_REQUIRED) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description No such resource */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
            /** @description Conflicts with the current state */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @description A code from the error catalogue, e.g. TW_ERR_INVALID_FIELD */
                            code: string;
                            /** @description The input the error is about, e.g. addressList[1] */
                            field?: string;
                            message: string;
                        };
                    };
                };
            };
        };
    };
}
