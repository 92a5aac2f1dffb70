package dev.mailqueue.account.control;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Account settings as an administrator writes them, and the routing rule: named account, else the
 * account serving the sender's domain, else the default (first listed); failover order.
 */
class AccountsTest {

    final Map<String, String> settings = new HashMap<>();

    Accounts cut() {
        return Accounts.of(AccountSettings.parse(name -> Optional.ofNullable(settings.get(name))));
    }

    @Test
    void withoutSettingsThereIsOneAccountMailqueueWithoutLimitsOrFailover() {
        Accounts cut = cut();

        assertThat(cut.all()).singleElement().satisfies(a -> {
            assertThat(a.name()).isEqualTo("mailqueue");
            assertThat(a.jndiName()).isEqualTo("mail/mailqueue");
            assertThat(a.failover()).isEmpty();
            assertThat(a.isRateLimited()).isFalse();
        });
        assertThat(cut.route(null, "a@anything.example").name()).isEqualTo("mailqueue");
    }

    @Test
    void smtpUtf8IsTriedUnlessAnAccountRefusesIt() {
        settings.put("mailqueue.accounts", "main,relay");
        settings.put("mailqueue.account.relay.smtputf8", "refuse");

        assertThat(cut().find("main")).hasValueSatisfying(a -> assertThat(a.refusesSmtpUtf8()).isFalse());
        assertThat(cut().find("relay")).hasValueSatisfying(a -> assertThat(a.refusesSmtpUtf8()).isTrue());
        settings.put("mailqueue.account.relay.smtputf8", "never");
        assertThatThrownBy(this::cut).hasMessageContaining("mailqueue.account.relay.smtputf8");
    }

    @Test
    void aNamedAccountBeatsTheSenderDomainWhichBeatsTheDefault() {
        settings.put("mailqueue.accounts", "main, bulk ,eu");
        settings.put("mailqueue.account.eu.sender-domains", "Shop.EU, other.eu");

        Accounts cut = cut();

        assertThat(cut.route("bulk", "orders@shop.eu").name()).isEqualTo("bulk");
        assertThat(cut.route(null, "orders@SHOP.eu").name()).isEqualTo("eu");
        assertThat(cut.route(" ", "orders@sub.shop.eu").name()).as("exact domains only").isEqualTo("main");
    }

    @Test
    void aProfileIsTheAccountThenItsFailoverAccountsInOrder() {
        settings.put("mailqueue.accounts", "main,backup1,backup2");
        settings.put("mailqueue.account.main.failover", "backup2,backup1");

        Accounts cut = cut();

        assertThat(cut.profile("main")).extracting(Account::name).containsExactly("main", "backup2", "backup1");
        assertThat(cut.profile(null)).extracting(Account::name).as("old rows: the default")
                .containsExactly("main", "backup2", "backup1");
        assertThat(cut.profile("backup1")).extracting(Account::name).containsExactly("backup1");
        assertThatThrownBy(() -> cut.profile("gone")).hasMessageContaining("gone").hasMessageContaining("not configured");
    }

    @Test
    void ratesAreReadPerAccount() {
        settings.put("mailqueue.accounts", "main,bulk");
        settings.put("mailqueue.account.bulk.rate.per-minute", "20");
        settings.put("mailqueue.account.bulk.rate.per-day", " 500 ");

        Account bulk = cut().find("bulk").orElseThrow();

        assertThat(bulk.perMinute()).isEqualTo(20);
        assertThat(bulk.perDay()).isEqualTo(500);
        assertThat(bulk.isRateLimited()).isTrue();
        assertThat(bulk.window()).as("a real minute unless set").isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void aWindowShorterThanAMinuteIsReadInMsWithinItsRange() {
        settings.put("mailqueue.accounts", "main,bulk");
        settings.put("mailqueue.account.bulk.rate.per-minute", "3");
        settings.put("mailqueue.account.bulk.rate.window.ms", "20000");
        assertThat(cut().find("bulk").orElseThrow().window()).isEqualTo(Duration.ofSeconds(20));

        for (String bad : new String[]{"999", "60001", "20 s"}) {
            settings.put("mailqueue.account.bulk.rate.window.ms", bad);
            assertThatThrownBy(this::cut).as(bad).hasMessageContaining("mailqueue.account.bulk.rate.window.ms")
                    .hasMessageContaining(bad);
        }
    }

    @Test
    void badSettingsAreRefusedNamingTheSetting() {
        settings.put("mailqueue.accounts", "main,bad name");
        assertThatThrownBy(this::cut).hasMessageContaining("mailqueue.accounts").hasMessageContaining("bad name");

        settings.put("mailqueue.accounts", "main,main");
        assertThatThrownBy(this::cut).hasMessageContaining("listed twice");

        settings.put("mailqueue.accounts", "main,bulk");
        settings.put("mailqueue.account.main.failover", "nowhere");
        assertThatThrownBy(this::cut).hasMessageContaining("mailqueue.account.main.failover");

        settings.put("mailqueue.account.main.failover", "main");
        assertThatThrownBy(this::cut).as("not to itself").hasMessageContaining("mailqueue.account.main.failover");

        settings.remove("mailqueue.account.main.failover");
        settings.put("mailqueue.account.bulk.rate.per-minute", "-1");
        assertThatThrownBy(this::cut).hasMessageContaining("mailqueue.account.bulk.rate.per-minute");

        settings.put("mailqueue.account.bulk.rate.per-minute", "lots");
        assertThatThrownBy(this::cut).hasMessageContaining("whole number");

        settings.remove("mailqueue.account.bulk.rate.per-minute");
        settings.put("mailqueue.account.main.sender-domains", "shop.example");
        settings.put("mailqueue.account.bulk.sender-domains", "SHOP.example");
        assertThatThrownBy(this::cut).hasMessageContaining("mailqueue.account.bulk.sender-domains")
                .hasMessageContaining("already routed to account main");
    }
}
