package dev.mailqueue.retention.boundary;

import jakarta.ejb.ScheduleExpression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The retention schedule setting read as six EJB calendar fields. */
class CalendarScheduleTest {

    @Test
    void theDefaultIsDailyAtThreeInTheMorning() {
        ScheduleExpression daily = CalendarSchedule.parse("0 0 3 * * *");

        assertThat(daily.getSecond()).isEqualTo("0");
        assertThat(daily.getMinute()).isEqualTo("0");
        assertThat(daily.getHour()).isEqualTo("3");
        assertThat(daily.getDayOfMonth()).isEqualTo("*");
        assertThat(daily.getMonth()).isEqualTo("*");
        assertThat(daily.getDayOfWeek()).isEqualTo("*");
    }

    @Test
    void fieldsKeepTheirCalendarSyntaxAndExtraBlanksDoNotMatter() {
        ScheduleExpression weekdays = CalendarSchedule.parse("  */30   15 1-5  * Jan,Jul Mon-Fri ");

        assertThat(weekdays.getSecond()).isEqualTo("*/30");
        assertThat(weekdays.getMinute()).isEqualTo("15");
        assertThat(weekdays.getHour()).isEqualTo("1-5");
        assertThat(weekdays.getMonth()).isEqualTo("Jan,Jul");
        assertThat(weekdays.getDayOfWeek()).isEqualTo("Mon-Fri");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "0 0 3 * *", "0 0 3 * * * *", "@daily"})
    void anythingButSixFieldsIsRefusedWithAnExample(String schedule) {
        assertThatThrownBy(() -> CalendarSchedule.parse(schedule))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("six fields").hasMessageContaining("0 0 3 * * *");
    }
}
