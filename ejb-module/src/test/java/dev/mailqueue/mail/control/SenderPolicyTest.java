package dev.mailqueue.mail.control;

import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.MailRequest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class SenderPolicyTest {

    SenderPolicy cut;

    @BeforeEach
    void allowLists() {
        cut = new SenderPolicy();
        Map<String, String> lists = Map.of(
                "shop", "orders@shop.example, @news.shop.example",
                "relay", "*",
                "blank", " , ");
        cut.allowLists = user -> Optional.ofNullable(lists.get(user));
    }

    @Test
    void anAddressEntryAllowsExactlyThatAddressWithTheDomainInAnyCase() {
        assertThat(cut.allows("shop", "orders@shop.example")).isTrue();
        assertThat(cut.allows("shop", "orders@SHOP.Example")).isTrue();
        assertThat(cut.allows("shop", "Orders@shop.example")).as("local part is exact").isFalse();
        assertThat(cut.allows("shop", "billing@shop.example")).isFalse();
    }

    @Test
    void aDomainEntryAllowsEveryAddressThereButNotSubdomainsOrLookalikes() {
        assertThat(cut.allows("shop", "anyone@news.shop.example")).isTrue();
        assertThat(cut.allows("shop", "anyone@x.news.shop.example")).isFalse();
        assertThat(cut.allows("shop", "anyone@evilnews.shop.example")).isFalse();
        assertThat(cut.allows("shop", "news.shop.example@attacker.example")).isFalse();
    }

    @Test
    void aStarAllowsAnythingAndNoListOrAnEmptyOneAllowsNothing() {
        assertThat(cut.allows("relay", "anyone@anywhere.example")).isTrue();
        assertThat(cut.allows("stranger", "orders@shop.example")).isFalse();
        assertThat(cut.allows("blank", "orders@shop.example")).isFalse();
    }

    @Test
    void checkNamesTheFieldAndLetsAdministratorsSendAsAnyone() {
        MailRequest mail = new MailRequest().from("ceo@bank.example");
        assertThat(cut.check("shop", false, mail, "[2].from")).get().extracting(FieldError::getField)
                .isEqualTo("[2].from");
        assertThat(cut.check("shop", true, mail, "from")).isEmpty();
        assertThat(cut.check("shop", false, new MailRequest().from("orders@shop.example"), "from")).isEmpty();
    }
}
