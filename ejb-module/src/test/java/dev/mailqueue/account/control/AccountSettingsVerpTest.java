package dev.mailqueue.account.control;

import dev.mailqueue.address.control.VerpAddress;
import dev.mailqueue.address.control.VerpToken;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The bounce address of an account and the VERP secret, as an administrator writes them. */
class AccountSettingsVerpTest {

    static final String SECRET = "an-it-secret-of-more-than-32-octets-0123456789";

    final Map<String, String> settings = new HashMap<>();

    List<Account> parse() {
        return AccountSettings.parse(name -> Optional.ofNullable(settings.get(name)));
    }

    Accounts cut() {
        List<Account> accounts = parse();
        return Accounts.of(accounts, AccountSettings.verpToken(name -> Optional.ofNullable(settings.get(name)), accounts));
    }

    @Test
    void withoutABounceAddressMailKeepsTheSessionsEnvelopeSender() {
        Accounts cut = cut();

        assertThat(cut.defaultAccount().usesVerp()).isFalse();
        assertThat(cut.envelopeSender(cut.defaultAccount(), 42, 0)).isNull();
        assertThat(cut.verp()).isEmpty();
    }

    @Test
    void aBounceAddressGivesEachMailItsVerpEnvelopeSender() {
        settings.put("mailqueue.accounts", "main,bulk");
        settings.put("mailqueue.account.bulk.bounce-address", " bounces@Example.COM ");
        settings.put(AccountSettings.VERP_SECRET, SECRET);

        Accounts cut = cut();

        Account bulk = cut.find("bulk").orElseThrow();
        assertThat(bulk.bounceAddress()).as("the domain in lower case").isEqualTo("bounces@example.com");
        String sender = cut.envelopeSender(bulk, 42, 1);
        assertThat(sender).startsWith("bounces+").endsWith("@example.com");
        assertThat(VerpAddress.token(sender).flatMap(cut.verp().orElseThrow()::read).orElseThrow())
                .isEqualTo(new VerpToken.Named(42, Optional.of(1)));
        assertThat(cut.envelopeSender(bulk, 43, 1)).isNotEqualTo(sender);
        assertThat(cut.envelopeSender(bulk, 42, 0)).as("another recipient of the same mail").isNotEqualTo(sender);
        assertThat(VerpAddress.token(cut.envelopeSenderOfMail(bulk, 42)).flatMap(cut.verp().orElseThrow()::read)
                .orElseThrow()).as("the token of a redirected mail names no recipient")
                .isEqualTo(new VerpToken.Named(42, Optional.empty()));
        assertThat(cut.envelopeSender(cut.find("main").orElseThrow(), 42, 0)).as("main has none").isNull();
    }

    @Test
    void aBounceAddressWithoutSecretIsRefusedNamingTheSecretsSetting() {
        settings.put("mailqueue.account.mailqueue.bounce-address", "bounces@example.com");

        assertThatThrownBy(this::parse).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("mailqueue.bounce.verp-secret").hasMessageContaining("is not set")
                .hasMessageContaining("mailqueue.account.mailqueue.bounce-address")
                .hasMessageContaining("MAILQUEUE_BOUNCE_VERP_SECRET");
        settings.put(AccountSettings.VERP_SECRET, "  ");
        assertThatThrownBy(this::parse).hasMessageContaining("mailqueue.bounce.verp-secret is not set");
    }

    @Test
    void aShortSecretIsRefusedWithoutShowingIt() {
        settings.put("mailqueue.account.mailqueue.bounce-address", "bounces@example.com");
        settings.put(AccountSettings.VERP_SECRET, "too-short-to-use");

        assertThatThrownBy(this::parse).hasMessageContaining("mailqueue.bounce.verp-secret")
                .hasMessageContaining("32").hasMessageNotContaining("too-short-to-use");
    }

    @Test
    void aSecretAloneStillVerifiesTokensOfLateReports() {
        settings.put(AccountSettings.VERP_SECRET, SECRET);

        assertThat(cut().verp()).isPresent();
    }

    @Test
    void aBadBounceAddressIsRefusedNamingItsSetting() {
        settings.put(AccountSettings.VERP_SECRET, SECRET);
        settings.put("mailqueue.account.mailqueue.bounce-address", "bounces+x@example.com");
        assertThatThrownBy(this::parse).hasMessageContaining("mailqueue.account.mailqueue.bounce-address").hasMessageContaining("+");

        settings.put("mailqueue.account.mailqueue.bounce-address", "b".repeat(30) + "@example.com");
        assertThatThrownBy(this::parse).hasMessageContaining("mailqueue.account.mailqueue.bounce-address")
                .hasMessageContaining("RFC 5321");
    }
}
