// AccountDO, one per account: a table of contents, each call handed to the part that owns it, grouped by
// capability, each folder owning its tables. Authority for: the account row; its members, their roles
// and invitations (members/); its API and SSH keys and which caller is who (credentials/); its balance,
// ledger, the Stripe payments and disputes applied to it and its freeze (money/); its instances
// (status, desired state, billing, when an idle one is stopped), their events and idempotency keys
// (instances/); its webhooks and their deliveries (webhooks/); its volumes (volumes/). Not for GPUs
// (MachineDO), prices (FleetDO; frozen here per instance), people's passwords and sessions (PersonDO)
// nor emails (EmailDO). A caller and their role are checked on the same call as what they allow; key
// changes, stops, destroys and removals wait for their MachineDOs' acks, and the end of a key, a
// session, a membership or an SSH key ends what it opened (credentials/credential-ends.ts).
import { DurableObject } from "cloudflare:workers";
import { clock, iso } from "../../core/clock.ts";
import type { Env } from "../../core/env.ts";
import { fail, type Failure, type Ok } from "../../core/errors.ts";
import type { Idempotency, LaunchPlan } from "../../core/launch-plan.ts";
import { useLogLevel } from "../../core/log.ts";
import type { AuditPage, AuditQuery } from "../contracts/audit.ts";
import type { AccountInfo, AccountLimitChanges, OperatorAccount } from "../contracts/accounts.ts";
import type { KeyRequest, ScopeRoles } from "../contracts/api-keys.ts";
import type { MachineReport } from "../contracts/object-messages.ts";
import type { MetricsSources } from "../contracts/metrics-export.ts";
import type { BudgetChanges, BudgetView } from "../contracts/budgets.ts";
import type { AccountMembership, Credential, InvitationFor, InvitationView, MemberView, PersonCaller, Role } from "../contracts/members.ts";
import type { LegacyLogin } from "../contracts/persons.ts";
import type { Opener } from "../contracts/opener.ts";
import type { CreatedCheckout, FraudWarning, PaymentEvent } from "../contracts/payments.ts";
import type { NewVolume, SnapshotSource, VolumeAnswer, VolumeCall, VolumeCommitRequest, VolumeCommitResult, VolumeContent, VolumeSaveFailure, VolumeView } from "../contracts/volumes.ts";
import type { VolumeUploadAppended, VolumeUploadDone, VolumeUploadPart, VolumeUploadState } from "../contracts/volume-uploads.ts";
import type { WebhookAnswer, WebhookCall } from "../contracts/webhooks.ts";
import { callerRefused } from "../contracts/refusals.ts";
import { SingleAlarm } from "../outbox/single-alarm.ts";
import { sqlFor, type Sql } from "../sql.ts";
import { freezeForWarning, frozenReason, setFrozen } from "./money/account-freeze.ts";
import { AccountRecord, noSuchAccount } from "./account-record.ts";
import { AppOpeners } from "./instances/app-openers.ts";
import { Callers, openerOf, reaches, type Caller } from "./credentials/credential-check.ts";
import { CredentialEnds } from "./credentials/credential-ends.ts";
import { Expiry } from "./instances/expiry.ts";
import { limitGpus, maxGpus } from "./instances/gpu-limit.ts";
import { IdleStop } from "./instances/idle-stop.ts";
import { InstanceActions, type InstanceChanges } from "./instances/instance-actions.ts";
import type { Instance } from "./instances/instance-row.ts";
import { InstanceViews, noInstance, type InstanceResult } from "./instances/instance-views.ts";
import { KeyChanges } from "./credentials/key-changes.ts";
import type { CreatedKey, KeySummary } from "./credentials/keys.ts";
import { checkKeyRequest } from "./credentials/key-rights.ts";
import { LaunchTimeout } from "./instances/launch-timeout.ts";
import type { LedgerPageOf } from "./money/ledger-page.ts";
import { MachineDirectives } from "./machine-directives.ts";
import type { NewOwnedAccount } from "./members/account-creation.ts";
import { notValid } from "./members/invitations.ts";
import { makerOf, mayRevoke } from "./members/member-keys.ts";
import { Team } from "./members/team.ts";
import { metricsSources } from "./instances/metrics-sources.ts";
import { MachineReports } from "./instances/reports.ts";
import { createAccountSchema } from "./schema.ts";
import { SerialQueue } from "./serial-queue.ts";
import { Settlement } from "./money/settlement.ts";
import { usageReport, type UsageQuery, type UsageReport } from "./money/usage.ts";
import { SshKeys, type SshKeyCall, type SshKeyResult } from "./credentials/ssh-keys.ts";
import { Volumes } from "./volumes/volumes.ts";
import { WebhookEndpoints } from "./webhooks/webhook-endpoints.ts";
import { forgetLegacyLogin, legacyLogin } from "./credentials/legacy-login.ts";
import { KeyExpiry } from "./credentials/key-expiry.ts";
import { abandonSignupUnlessCreated } from "./members/signup-fence.ts";
import { actingAs, actingFor, OPERATOR, personActing } from "./audit/actors.ts";
import { auditPage, describeChanges, recordAudit } from "./audit/audit-log.ts";
import { AuditPruning } from "./audit/audit-pruning.ts";

export class AccountDO extends DurableObject<Env> {
  private readonly record: AccountRecord;
  private readonly callers: Callers;
  private readonly store: { sql: Sql; transaction<T>(fn: () => T): T };
  private readonly views: InstanceViews;
  private readonly instances: InstanceActions;
  private readonly keys: KeyChanges;
  private readonly apps: AppOpeners;
  private readonly ends: CredentialEnds;
  private readonly settlement: Settlement;
  private readonly reports: MachineReports;
  private readonly webhooks: WebhookEndpoints;
  private readonly alarms: SingleAlarm;
  private readonly queue = new SerialQueue();
  private readonly sshKeys: SshKeys;
  private readonly volumes: Volumes;
  private readonly team: Team;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    useLogLevel(env.LOG_LEVEL);
    const sql = sqlFor(ctx.storage);
    createAccountSchema(sql);
    const transaction = <T,>(fn: () => T): T => ctx.storage.transactionSync(fn);
    // Settlement and expiry are on this object's clock (tests move it); the alarm keeps real time.
    this.alarms = new SingleAlarm(ctx, () => clock.now());
    this.record = new AccountRecord(sql, transaction);
    this.store = { sql, transaction };
    const directives = new MachineDirectives(sql, env, this.record, this.alarms);
    const parts = { sql, env, transaction, record: this.record, directives };
    this.views = new InstanceViews(parts);
    this.instances = new InstanceActions({ ...parts, views: this.views });
    this.keys = new KeyChanges(parts);
    this.apps = new AppOpeners(parts);
    this.ends = new CredentialEnds(parts);
    this.team = new Team({ ...parts, ends: this.ends });
    this.callers = new Callers(sql, this.record, this.team);
    this.sshKeys = new SshKeys(sql, transaction, this.ends);
    this.settlement = new Settlement({ ...parts, instances: this.instances, alarms: this.alarms });
    this.reports = new MachineReports(sql, transaction, this.settlement);
    this.webhooks = new WebhookEndpoints(parts, this.alarms);
    this.volumes = new Volumes(sql, env, transaction, () => this.record.id(), () => this.alarms.backstop());
    // The launch timeout before the outbox: a launch given up on this alarm is told to its host on the same ring.
    this.alarms.register(this.settlement, new Expiry(sql), new AuditPruning(sql), new LaunchTimeout(parts), new IdleStop(parts, this.instances), new KeyExpiry(parts), directives, this.webhooks.sender, this.volumes.sweep, this.volumes.uploads, this.volumes.garbage, this.volumes.grace);
  }

  // ---- operator API ----
  initialize(accountId: string, balanceMicros: number): AccountInfo {
    return this.record.initialize(accountId, balanceMicros, iso(clock.now()));
  }

  credit(amountMicros: number, note: string): Ok<{ balance_micros: number }> | Failure {
    return this.record.info() ? this.changed(actingAs(OPERATOR, () => this.settlement.credit(amountMicros, note))) : noSuchAccount();
  }

  /** The account as the operator sees it: its GPU limit, and whether (and why) it is frozen. */
  operatorView(): Ok<{ account: OperatorAccount }> | Failure {
    const { sql } = this.store;
    const info = this.record.info();
    if (!info) return noSuchAccount();
    const reason = frozenReason(sql);
    return { ok: true, account: { ...info, max_gpus: maxGpus(sql, this.env), frozen: reason !== null, frozen_reason: reason } };
  }

  /** The operator's GPU limit (null: ACCOUNT_MAX_GPUS) and freeze; the account as the operator sees it after. */
  setLimits(changes: AccountLimitChanges): Ok<{ account: OperatorAccount }> | Failure {
    const { sql } = this.store;
    if (!this.record.info()) return noSuchAccount();
    actingAs(OPERATOR, () => this.store.transaction(() => {
      if (changes.max_gpus !== undefined) limitGpus(sql, changes.max_gpus);
      if (changes.frozen !== undefined) setFrozen(sql, changes.frozen);
      recordAudit(sql, { action: "account.limits", target: { type: "account", id: null }, detail: describeChanges(changes) });
    }));
    return this.operatorView();
  }

  async createApiKey(request: KeyRequest): Promise<Ok<{ key: CreatedKey }> | Failure> {
    if (!this.record.info()) return noSuchAccount();
    const made = checkKeyRequest(request, { role: null, key: null }, clock.now(), (id) => this.views.visible(id) !== undefined);
    return "ok" in made ? made : this.changed(await this.queue.run(() => actingAs(OPERATOR, () => this.keys.create(made, null))));
  }

  listApiKeys(): Ok<{ items: KeySummary[] }> | Failure {
    return this.record.info() ? { ok: true, items: this.keys.list() } : noSuchAccount();
  }

  async revokeApiKey(keyId: string): Promise<Ok<object> | Failure> {
    return this.record.info() ? this.changed(await this.queue.run(() => actingAs(OPERATOR, () => this.keys.revoke(keyId, `no live key ${keyId}`)))) : noSuchAccount();
  }

  // ---- caller API (each checks the caller's credential: an API key or a session) ----
  /** Whether the caller may call the route (`credential.may`): for routes whose work is not the account's. */
  async authenticate(credential: Credential): Promise<Ok<object> | Failure> {
    return (await this.callers.refusal(credential)) ?? { ok: true };
  }

  /** The account with the caller's role in it. */
  async me(credential: Credential): Promise<Ok<{ account: AccountInfo & BudgetView & { role: Role } }> | Failure> {
    const admitted = await this.callers.admitted(credential);
    if ("refused" in admitted) return admitted.refused;
    const read = await this.settlement.accountAsRead();
    return read.ok ? { ok: true, account: { ...read.account, ...this.settlement.budgetView(), role: admitted.caller.role } } : read;
  }

  /** A key needs account:write for it besides the route's scope. */
  async renameAccount(credential: Credential, name: string): Promise<Ok<object> | Failure> {
    const admitted = await this.callers.admitted(credential, undefined, "account:write");
    return "refused" in admitted ? admitted.refused : (await this.as(credential, () => this.team.rename(name)), { ok: true });
  }

  /** The monthly budget and what reaching it does (money/budgets.ts); one already reached with `stop` stops what runs before the answer. */
  async changeBudget(credential: Credential, changes: BudgetChanges): Promise<Ok<object> | Failure> {
    return (await this.callers.refusal(credential)) ?? this.changed((await this.as(credential, () => this.settlement.changeBudget(changes))) ?? { ok: true });
  }

  /** A key kept to some instances launches none (it could not reach it). */
  launch(key: Credential, plan: LaunchPlan, idem: Idempotency | null): Promise<InstanceResult> {
    return this.change(key, (caller) => this.instances.launch(plan, idem, caller), null);
  }

  /** The instances the caller reaches. */
  async listInstances(key: Credential): Promise<Ok<{ items: Instance[] }> | Failure> {
    const admitted = await this.callers.admitted(key);
    if ("refused" in admitted) return admitted.refused;
    const unsettled = await this.settlement.settleForRead();
    return unsettled ?? { ok: true, items: (await this.views.list()).filter((instance) => reaches(admitted.caller, instance.id)) };
  }

  /** GET /v1/metrics: the balance (settled as a read), this month's spend and the running instances the caller reaches. */
  async metricsSources(credential: Credential): Promise<Ok<{ sources: MetricsSources }> | Failure> {
    const admitted = await this.callers.admitted(credential);
    if ("refused" in admitted) return admitted.refused;
    const read = await this.settlement.accountAsRead();
    return read.ok ? { ok: true, sources: metricsSources(this.store.sql, this.env, admitted.caller, read.account.balance_micros, clock.now()) } : read;
  }

  async getInstance(key: Credential, id: string): Promise<InstanceResult> {
    return (await this.callers.refusal(key, id)) ?? this.views.get(id);
  }

  async instanceEvents(key: Credential, id: string): Promise<Ok<{ items: { message: string; created_at: string }[] }> | Failure> {
    const found = await this.getInstance(key, id);
    return found.ok ? { ok: true, items: this.views.events(id) } : found;
  }

  async updateInstance(key: Credential, id: string, changes: InstanceChanges): Promise<InstanceResult> {
    const found = await this.getInstance(key, id);
    return found.ok ? this.changed(await this.as(key, () => this.queue.run(() => this.instances.update(id, changes)))) : found;
  }

  /** A caller's stop, start or destroy (instance-actions.ts). */
  changeInstance(key: Credential, id: string, action: "stop" | "start" | "destroy"): Promise<InstanceResult> {
    return this.change(key, (caller) => (action === "start" ? this.instances.start(id, caller) : this.instances[action](id)), id);
  }

  /**
   * The proxy's slow path (a key the MachineDO cannot judge, an instance it does not know), and the
   * opening of a terminal or a log stream: names the instance's machine, and the `opener` the stream is
   * noted with there (null: the instance's token), which ends it when it ends. `caller`: who may open
   * it, a key or the instance's token (`bearer`), a signed-in session alone (`session`, the terminal),
   * or a key or a session (`account`, the logs).
   */
  async openProxy(credential: Credential, id: string, caller: "bearer" | "session" | "account" = "bearer"): Promise<Ok<{ machine_id: number; opener: Opener | null }> | Failure> {
    const byToken = caller === "bearer" && credential.token !== undefined && (await this.views.isTokenOf(id, credential.token));
    let opener: Opener | null = null;
    if (!byToken) {
      const admitted = await this.callers.admitted(credential, id);
      if ("refused" in admitted) return admitted.refused;
      const { kind } = admitted.caller;
      if (caller === "session" ? kind === "key" : caller === "bearer" && kind !== "key") return callerRefused();
      opener = openerOf(admitted.caller);
    }
    const row = this.views.visible(id);
    return row ? { ok: true, machine_id: row.machine_id!, opener } : noInstance(id);
  }

  /** A web app's one-time ticket, for any caller; in the queue, so a sign-out cannot slip in (app-openers.ts). */
  async openApp(credential: Credential, id: string, port: number): Promise<Ok<{ ticket: string; expires_ms: number }> | Failure> {
    return this.queue.run(async () => {
      const admitted = await this.callers.admitted(credential, id);
      if ("refused" in admitted) return admitted.refused;
      const row = this.views.visible(id);
      return row ? this.apps.open(admitted.caller, row, port) : noInstance(id);
    });
  }

  // ---- sign-up (the EmailDO decides which person holds an email), and the login of before teams ----
  /** From the EmailDO, for a sign-up of before teams it lost track of: does the account exist? If not, it never will. */
  abandonSignup(email: string): { exists: boolean } {
    return abandonSignupUnlessCreated(this.store.sql, email, iso(clock.now()));
  }

  /** The email, password hash and sessions this account held before teams, for the person made from it (null: none, or handed over). */
  handOverLogin(): LegacyLogin | null {
    return legacyLogin(this.store.sql);
  }

  /** Forgets them once the person holds them. */
  forgetLogin(): void {
    this.store.transaction(() => forgetLegacyLogin(this.store.sql));
  }

  // ---- self-service: API and SSH keys, the ledger, webhooks ----
  async listKeysFor(credential: Credential): Promise<Ok<{ items: KeySummary[] }> | Failure> {
    return (await this.callers.refusal(credential)) ?? { ok: true, items: this.keys.list() };
  }

  /** The key is made by the caller's member (members/member-keys.ts), acts with their role, and holds at most it and the calling key (key-rights.ts). */
  async createKeyFor(credential: Credential, request: KeyRequest, scopeRoles: ScopeRoles): Promise<Ok<{ key: CreatedKey }> | Failure> {
    const admitted = await this.callers.admitted(credential);
    if ("refused" in admitted) return admitted.refused;
    const { caller } = admitted;
    const maker = { role: { role: caller.role, scopeRoles }, key: caller.kind === "key" ? caller.rights : null };
    const made = checkKeyRequest(request, maker, clock.now(), (id) => this.views.visible(id) !== undefined);
    return "ok" in made ? made : this.changed(await this.as(credential, () => this.queue.run(() => this.keys.create(made, makerOf(this.store.sql, caller)))));
  }

  async revokeKeyFor(credential: Credential, keyId: string): Promise<Ok<object> | Failure> {
    const admitted = await this.callers.admitted(credential);
    if ("refused" in admitted) return admitted.refused;
    if (!mayRevoke(this.store.sql, admitted.caller, keyId)) return fail("forbidden", "a developer may revoke only the API keys they made");
    return this.changed(await this.as(credential, () => this.queue.run(() => this.keys.revoke(keyId, `no live key ${keyId} in this account`))));
  }

  /** The audit log, newest first (audit/audit-log.ts). */
  async auditLog(credential: Credential, query: AuditQuery): Promise<Ok<AuditPage> | Failure> {
    return (await this.callers.refusal(credential)) ?? { ok: true, ...auditPage(this.store.sql, query) };
  }

  async ledger(credential: Credential, limit: number, before: number | null): Promise<Ok<LedgerPageOf> | Failure> {
    return (await this.callers.refusal(credential)) ?? this.settlement.ledgerPage(limit, before);
  }

  async usage(credential: Credential, query: UsageQuery): Promise<Ok<UsageReport> | Failure> {
    return (await this.callers.refusal(credential)) ?? { ok: true, ...usageReport(this.store.sql, query) };
  }

  // ---- the account's people (members/) ----
  async listMembers(credential: Credential): Promise<Ok<{ items: MemberView[] }> | Failure> {
    return (await this.callers.refusal(credential)) ?? { ok: true, items: this.team.members.list() };
  }

  /** The invitation and its token, shown this once (the route makes it a link). */
  async invite(credential: Credential, invited: { email: string; role: Role }): Promise<Ok<{ invitation: InvitationView; token: string }> | Failure> {
    const admitted = await this.callers.admitted(credential);
    return "refused" in admitted ? admitted.refused : this.as(credential, () => this.team.joining.invite(admitted.caller, invited));
  }

  async listInvitations(credential: Credential): Promise<Ok<{ items: InvitationView[] }> | Failure> {
    return (await this.callers.refusal(credential)) ?? { ok: true, items: this.team.joining.invitations.pending(clock.now()) };
  }

  async revokeInvitation(credential: Credential, id: string): Promise<Ok<object> | Failure> {
    const refused = await this.callers.refusal(credential);
    if (refused) return refused;
    return (await this.as(credential, () => this.team.joining.invitations.revoke(id, clock.now()))) ? { ok: true } : fail("not_found", `no pending invitation ${id} in this account`);
  }

  async changeMember(credential: Credential, userId: string, role: Role): Promise<Ok<{ member: MemberView }> | Failure> {
    const admitted = await this.callers.admitted(credential);
    if ("refused" in admitted) return admitted.refused;
    return this.changed(await this.as(credential, () => this.queue.run(() => this.team.changes.changeRole(admitted.caller, userId, role))));
  }

  /** `revoked_keys`: how many of their API keys were revoked with the membership. */
  async removeMember(credential: Credential, userId: string): Promise<Ok<{ revoked_keys: number }> | Failure> {
    const admitted = await this.callers.admitted(credential);
    if ("refused" in admitted) return admitted.refused;
    return this.changed(await this.as(credential, () => this.queue.run(() => this.team.changes.remove(admitted.caller, userId))));
  }

  // ---- from the EmailDO and PersonDOs: sign-up's account, joining, sessions ----
  /** Sign-up's account with its owner, once the EmailDO has claimed the owner's email (members/account-creation.ts). */
  createForOwner(owner: NewOwnedAccount): Ok<object> | Failure {
    return this.team.createForOwner(owner);
  }

  /** The account as one of `userId`'s: null when they are no member. */
  membership(userId: string): AccountMembership | null {
    const account = this.record.info();
    return account ? this.team.members.membership(userId, account) : null;
  }

  invitationFor(token: string): Promise<Ok<{ invitation: InvitationFor }> | Failure> {
    return this.record.info() ? this.team.joining.invitationFor(token) : Promise.resolve(notValid());
  }

  /** The person joins with the invitation's role (a member already keeps theirs); the token is used up. */
  acceptInvitation(token: string, person: Pick<PersonCaller, "user_id" | "email">): Promise<Ok<{ account: AccountMembership }> | Failure> {
    return this.record.info() ? actingAs(personActing(person), () => this.team.joining.accept(token, person)) : Promise.resolve(notValid());
  }

  /** A person's sessions ended (a sign-out, a password change): what they opened on this account's hosts ends too. */
  async sessionsEnded(sessionIds: string[]): Promise<void> {
    await this.queue.run(() => this.ends.sessionsEnded(sessionIds));
    this.changed(null);
  }

  // ---- volumes (volumes/): the caller's calls, and the files route's ----
  async volumesFor(credential: Credential, call: VolumeCall): Promise<VolumeAnswer | Failure> {
    return (await this.callers.refusal(credential)) ?? this.changed(await this.as(credential, () => this.volumes.store.handle(call)));
  }

  /** Empty, or (`from`) holding a snapshot's content the files route has copied under the new volume's prefix. */
  async createVolume(credential: Credential, volume: NewVolume): Promise<Ok<{ volume: VolumeView }> | Failure> {
    return (await this.callers.refusal(credential)) ?? this.changed(await this.as(credential, () => this.volumes.store.create(volume)));
  }

  async snapshotSource(credential: Credential, snapshotId: string): Promise<Ok<{ source: SnapshotSource }> | Failure> {
    return (await this.callers.refusal(credential)) ?? this.volumes.store.snapshotSource(snapshotId);
  }

  async volumeContent(credential: Credential, idOrName: string): Promise<Ok<{ content: VolumeContent }> | Failure> {
    return (await this.callers.refusal(credential)) ?? this.volumes.store.content(idOrName);
  }

  async commitVolumeFiles(credential: Credential, request: VolumeCommitRequest): Promise<VolumeCommitResult> {
    return (await this.callers.refusal(credential)) ?? this.changed(await this.volumes.commits.commit({ ...request, instance_id: null }));
  }

  /** A file going into a volume in parts (volumes/uploads.ts): where it stands, each part's chunks appended, and the version its final part makes. */
  async volumeUpload(credential: Credential, idOrName: string, uploadId: string, path: string): Promise<Ok<VolumeUploadState> | Failure> {
    return (await this.callers.refusal(credential)) ?? this.volumes.uploads.state(idOrName, uploadId, path);
  }

  async appendVolumeUpload(credential: Credential, part: VolumeUploadPart): Promise<VolumeUploadAppended> {
    return (await this.callers.refusal(credential)) ?? this.changed(await this.volumes.uploads.append(part));
  }

  async completeVolumeUpload(credential: Credential, done: VolumeUploadDone): Promise<VolumeCommitResult> {
    return (await this.callers.refusal(credential)) ?? this.changed(await this.volumes.uploads.complete(done));
  }

  // ---- from the Worker, about Stripe ----
  /** A Checkout Session the Worker created for this account, recorded before its address is handed out. */
  recordCheckout(checkout: CreatedCheckout): Ok<object> | Failure {
    return this.record.info() ? this.settlement.payments.recordCheckout(checkout) : noSuchAccount();
  }

  receivePayment(event: PaymentEvent): Ok<{ applied: boolean }> | Failure {
    return this.record.info() ? this.changed(this.settlement.payments.apply(event)) : noSuchAccount();
  }

  /** Stripe's early fraud warning on a payment of this account: it is frozen (account-freeze.ts); `frozen`: false when this warning froze it before. */
  receiveFraudWarning(warning: FraudWarning): Ok<{ frozen: boolean }> | Failure {
    if (!this.record.info()) return noSuchAccount();
    return { ok: true, frozen: this.store.transaction(() => freezeForWarning(this.store.sql, warning)) };
  }

  async sshKeysFor(credential: Credential, call: SshKeyCall): Promise<SshKeyResult> {
    const byToken = call.op === "allowed" && credential.token !== undefined && (await this.views.isTokenOf(call.instance_id, credential.token));
    const refused = byToken ? null : await this.callers.refusal(credential, call.op === "allowed" ? call.instance_id : undefined);
    return refused ?? this.changed(await this.as(credential, () => this.sshKeys.handle(call)));
  }

  async webhooksFor(credential: Credential, call: WebhookCall): Promise<WebhookAnswer | Failure> {
    return (await this.callers.refusal(credential)) ?? this.changed(await this.as(credential, () => this.webhooks.handle(call)));
  }

  // ---- from MachineDOs ----
  applyMachineReports(machineId: number, reports: MachineReport[]): { unknown: string[] } {
    return this.changed({ unknown: this.reports.apply(machineId, reports) });
  }

  /** A save the instance's host stored, forwarded by its MachineDO once it checked the volume is that instance's read-write. */
  async commitVolumeVersion(request: VolumeCommitRequest): Promise<VolumeCommitResult> {
    return this.changed(await this.volumes.commits.commit(request));
  }

  volumeSaveFailed(failure: VolumeSaveFailure): void {
    this.changed(this.volumes.commits.saveFailed(failure));
  }

  override async alarm(): Promise<void> {
    await this.alarms.ring();
  }

  /** A caller's change to instance `instanceId` (null: a new one), in the queue. */
  private async change<T>(credential: Credential, action: (caller: Caller) => Promise<T>, instanceId: string | null): Promise<T | Failure> {
    const admitted = await this.callers.admitted(credential, instanceId);
    if ("refused" in admitted) return admitted.refused;
    return this.changed(await this.as(credential, () => this.queue.run(() => action(admitted.caller))));
  }

  /** `work` as the credential's holder, the actor of the audit entries it records (audit/actors.ts); only once they are admitted. */
  private async as<T>(credential: Credential, work: () => T | Promise<T>): Promise<T> {
    return actingAs(await actingFor(this.store.sql, credential), work);
  }

  /** After a state change: deliver to the machines now and keep the alarm right; passes `result` on. */
  private changed<T>(result: T): T {
    this.alarms.afterChange();
    return result;
  }
}
