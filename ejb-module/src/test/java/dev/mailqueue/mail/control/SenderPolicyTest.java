package dev.mailqueue.mail.control;

import dev.mailqueue.settings.control.Settings;
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
                SenderPolicy.PREFIX + "shop", "orders@shop.example, @news.shop.example",
                SenderPolicy.PREFIX + "relay", "*",
                SenderPolicy.PREFIX + "blank", " , ",
                SenderPolicy.ACCOUNTS_PREFIX + "shop", "bulk, newsletter",
                SenderPolicy.ACCOUNTS_PREFIX + "relay", "*",
                SenderPolicy.LISTS_PREFIX + "shop", "offers, weekly",
                SenderPolicy.TEMPLATES_PREFIX + "shop", "receipt, welcome",
                SenderPolicy.TEMPLATES_PREFIX + "relay", "*");
        cut.settings = Settings.of(lists);
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
    void aDomainIsUsableWhenAnEntryNamesItOrAnAddressAtItOrIsAStar() {
        assertThat(cut.mayUseDomain("shop", false, "SHOP.example")).as("an address entry's domain").isTrue();
        assertThat(cut.mayUseDomain("shop", false, "news.shop.example")).as("a domain entry").isTrue();
        assertThat(cut.mayUseDomain("shop", false, "other.example")).isFalse();
        assertThat(cut.mayUseDomain("stranger", false, "shop.example")).isFalse();
        assertThat(cut.mayUseDomain("stranger", true, "shop.example")).as("an administrator").isTrue();
        assertThat(cut.mayUseDomain("relay", false, "anywhere.example")).isTrue();
    }

    @Test
    void aSenderWithATemplateListMayUseOnlyItsTemplatesAndOneWithoutMayUseAny() {
        MailRequest own = new MailRequest().from("orders@shop.example").template("receipt", null, Map.of());
        MailRequest other = new MailRequest().from("orders@shop.example").template("payroll", null, Map.of());

        assertThat(cut.checkTemplate("shop", false, own, "template")).isEmpty();
        assertThat(cut.checkTemplate("shop", false, other, "[2].template")).get().satisfies(e -> {
            assertThat(e.getField()).isEqualTo("[2].template.name");
            assertThat(e.getMessage()).isEqualTo("is not a template user shop may use (see "
                    + SenderPolicy.TEMPLATES_PREFIX + "shop)");
        });
        assertThat(cut.checkTemplate("relay", false, other, "template")).as("*").isEmpty();
        assertThat(cut.checkTemplate("blank", false, other, "template")).as("no template property: every template")
                .isEmpty();
        assertThat(cut.checkTemplate("shop", true, other, "template")).as("an administrator").isEmpty();
        assertThat(cut.checkTemplate("shop", false, new MailRequest().from("orders@shop.example").text("t"), "template"))
                .as("a composed mail").isEmpty();
    }

    @Test
    void aSenderMayNameOnlyTheListsItOwns() {
        MailRequest own = new MailRequest().from("orders@shop.example").unsubscribeList("offers");
        MailRequest other = new MailRequest().from("orders@shop.example").unsubscribeList("rivals-news");
        assertThat(cut.check("shop", false, ParsedRequest.of(own), "from")).isEmpty();
        assertThat(cut.check("shop", false, ParsedRequest.of(other), "[4].from")).get().satisfies(e -> {
            assertThat(e.getField()).isEqualTo("[4].unsubscribeList");
            assertThat(e.getMessage()).contains(SenderPolicy.LISTS_PREFIX + "shop").doesNotContain("offers");
        });
        assertThat(cut.check("relay", false, ParsedRequest.of(new MailRequest().from("a@b.example").unsubscribeList("offers")), "from"))
                .as("no list property: no list").isPresent();
        assertThat(cut.check("shop", true, ParsedRequest.of(other), "from")).as("an administrator").isEmpty();
    }

    @Test
    void checkNamesTheFieldAndLetsAdministratorsSendAsAnyone() {
        MailRequest mail = new MailRequest().from("ceo@bank.example");
        assertThat(cut.check("shop", false, ParsedRequest.of(mail), "[2].from")).get().extracting(FieldError::getField)
                .isEqualTo("[2].from");
        assertThat(cut.check("shop", true, ParsedRequest.of(mail), "from")).isEmpty();
        assertThat(cut.check("shop", false, ParsedRequest.of(new MailRequest().from("orders@shop.example")), "from")).isEmpty();
    }

    @Test
    void aRawMessagesAuthorIsCheckedByItsAddressAndRefusedUnderItsOwnField() {
        assertThat(cut.checkAuthor("shop", false, "orders@SHOP.example", "message.From")).isEmpty();
        assertThat(cut.checkAuthor("shop", false, "ceo@bank.example", "message.Sender")).get()
                .extracting(FieldError::getField).isEqualTo("message.Sender");
        assertThat(cut.checkAuthor("shop", true, "ceo@bank.example", "message.From")).as("an administrator").isEmpty();
    }

    @Test
    void anAccountMayBeNamedOnlyWhenTheUsersAccountListHasItAndTheRefusalListsNoOtherAccount() {
        MailRequest bulk = new MailRequest().from("orders@shop.example").account("bulk");
        MailRequest other = new MailRequest().from("orders@shop.example").account("transactional");

        assertThat(cut.check("shop", false, ParsedRequest.of(bulk), "from")).isEmpty();
        assertThat(cut.check("shop", false, ParsedRequest.of(other), "[4].from")).get().satisfies(error -> {
            assertThat(error.getField()).isEqualTo("[4].account");
            assertThat(error.getMessage()).doesNotContain("bulk", "newsletter");
        });
        assertThat(cut.check("relay", false, ParsedRequest.of(other), "from")).as("* allows every account").isEmpty();
        assertThat(cut.check("shop", true, ParsedRequest.of(other), "from")).as("administrators use any account").isEmpty();
    }

    @Test
    void aUserWithoutAnAccountListMayNameNoAccountButRoutingStillChoosesOne() {
        assertThat(cut.check("blank", false, ParsedRequest.of(new MailRequest().from("x@y.example")), "from"))
                .as("From is refused first").get().extracting(FieldError::getField).isEqualTo("from");
        cut.settings = Settings.of(name -> Optional.of("*").filter(v -> name.startsWith(SenderPolicy.PREFIX)));
        assertThat(cut.check("u", false, ParsedRequest.of(new MailRequest().from("x@y.example")), "from")).isEmpty();
        assertThat(cut.check("u", false, ParsedRequest.of(new MailRequest().from("x@y.example").account("mailqueue")), "from"))
                .get().extracting(FieldError::getField).isEqualTo("account");
    }
}
