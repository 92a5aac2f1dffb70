package dev.mailqueue.admin.boundary;

import dev.mailqueue.login.boundary.LoginView;
import dev.mailqueue.login.control.AccessTokens;

import dev.mailqueue.account.control.Account;
import dev.mailqueue.account.control.Accounts;
import dev.mailqueue.account.control.RelayKind;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.log.control.LogText;
import dev.mailqueue.api.Roles;
import dev.mailqueue.queue.control.DispatchPauseStore;
import dev.mailqueue.queue.control.Pauses;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * Pausing and resuming dispatch, for the whole queue or one SMTP account, on every server at once (the
 * pauses are rows the claim reads): paused mail waits QUEUED, no attempt spent; mail already claimed
 * finishes. A repeat changes nothing. Each change is logged with the operator's name. Role
 * {@code mail-admin}; {@code mail-viewer} may read the state.
 */
@Stateless
@DeclareRoles({Roles.SENDER, Roles.ADMIN, Roles.VIEWER})
@RolesAllowed(Roles.ADMIN)
public class DispatchPauses {

    private static final Logger LOG = Logger.getLogger(DispatchPauses.class.getName());

    @Inject
    DispatchPauseStore store;

    @Inject
    Accounts accounts;

    @Inject
    AccessTokens tokens;

    @Resource
    SessionContext context;

    /**
     * Dispatch as the admin API shows it.
     *
     * @param queue    the pause of the whole queue, or null while it runs
     * @param accounts every account this server has (the default first), then every other paused name
     */
    public record DispatchState(Pause queue, List<AccountState> accounts) {
    }

    /**
     * One pause.
     *
     * @param at when
     * @param by by whom, or null
     */
    public record Pause(Instant at, String by) {
    }

    /**
     * One SMTP account's dispatch.
     *
     * @param name       its name
     * @param isDefault  true for the default account (which also sends mail routed to no account)
     * @param configured true when this server has it (a paused name it does not have is listed too)
     * @param pause      its pause, or null while it runs
     * @param login      how it logs in on this server ({@link LoginView#PASSWORD} for a name it does not have)
     * @param relay      how it hands mail on: {@code smtp}, {@code ses} or {@code graph} ({@code smtp} for a name it
     *                   does not have)
     */
    public record AccountState(String name, boolean isDefault, boolean configured, Pause pause, LoginView login,
                               String relay) {
    }

    /** @return the queue's and every account's pause */
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public DispatchState state() {
        Pause queue = null;
        Map<String, Pause> paused = new LinkedHashMap<>();
        for (DispatchPauseStore.Pause p : store.list()) {
            Pause pause = new Pause(p.pausedAt(), p.pausedBy());
            if (Pauses.QUEUE.equals(p.scope())) {
                queue = pause;
            } else {
                p.account().ifPresent(name -> paused.put(name, pause));
            }
        }
        String defaultName = accounts.defaultAccount().name();
        List<AccountState> states = new ArrayList<>();
        for (Account account : accounts.all()) {
            String name = account.name();
            states.add(new AccountState(name, name.equals(defaultName), true, paused.remove(name),
                    account.relay() == RelayKind.SES ? LoginView.AWS_SIGV4 : LoginView.of(tokens.state(name)),
                    account.relay().value()));
        }
        paused.forEach((name, pause) -> states.add(new AccountState(name, false, false, pause, LoginView.PASSWORD,
                RelayKind.SMTP.value())));
        return new DispatchState(queue, states);
    }

    /** Pauses the whole queue. @return the state */
    public DispatchState pauseQueue() {
        if (store.pause(Pauses.QUEUE, caller(), Instant.now())) {
            LOG.info(() -> LogText.escape(caller()) + " paused dispatch of the whole queue");
        }
        return state();
    }

    /** Resumes the whole queue (paused accounts stay paused). @return the state */
    public DispatchState resumeQueue() {
        if (store.resume(Pauses.QUEUE)) {
            LOG.info(() -> LogText.escape(caller()) + " resumed dispatch of the whole queue");
        }
        return state();
    }

    /**
     * Pauses one account (also one this server does not have: other servers may).
     *
     * @param name the account
     * @return the state
     * @throws InvalidFilterException when the name is not an account name
     */
    public DispatchState pauseAccount(String name) throws InvalidFilterException {
        check(name);
        if (store.pause(Pauses.ACCOUNT + name, caller(), Instant.now())) {
            LOG.info(() -> LogText.escape(caller()) + " paused dispatch of account " + name);
        }
        return state();
    }

    /**
     * Resumes one account.
     *
     * @param name the account
     * @return the state
     * @throws InvalidFilterException when the name is not an account name
     */
    public DispatchState resumeAccount(String name) throws InvalidFilterException {
        check(name);
        if (store.resume(Pauses.ACCOUNT + name)) {
            LOG.info(() -> LogText.escape(caller()) + " resumed dispatch of account " + name);
        }
        return state();
    }

    private static void check(String name) throws InvalidFilterException {
        if (name == null || !name.matches(MailLimits.ACCOUNT_NAME)) {
            throw new InvalidFilterException(List.of(new FieldError("name",
                    "is not an SMTP account name (A-Z a-z 0-9 _ -, 1 to 64 characters)")));
        }
    }

    private String caller() {
        return context.getCallerPrincipal().getName();
    }
}
