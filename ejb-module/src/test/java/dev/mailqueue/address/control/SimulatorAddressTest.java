package dev.mailqueue.address.control;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class SimulatorAddressTest {

    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {
            "success@simulator.mailqueue.test, SUCCESS",
            "SUCCESS@Simulator.MailQueue.Test, SUCCESS",
            "bounce+invoice-17@simulator.mailqueue.test, BOUNCE",
            "defer@simulator.mailqueue.test, DEFER",
            "complaint@simulator.mailqueue.test, COMPLAINT",
            "suppressed+a@simulator.mailqueue.test, SUPPRESSED",
            "someone@simulator.mailqueue.test, UNKNOWN",
            "success@mailqueue.test, null",
            "success@sub.simulator.mailqueue.test, null",
            "success@simulator.mailqueue.test.example, null",
            "bob@example.com, null"
    })
    void theLocalPartNamesTheOutcomeAtTheSimulatorDomainOnly(String address, SimulatorAddress.Kind kind) {
        assertThat(SimulatorAddress.of(address)).isEqualTo(kind);
    }
}
