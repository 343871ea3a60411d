#!/usr/bin/env perl
# A greedy bot for the arena's line protocol (docs/bots.md), through the stdio bridge
#
#   arena connect --url ws://127.0.0.1:8765/ --token TOKEN --exec "perl examples/perl/greedy_bot.pl"
#
# or locally: arena play --p1 "exec:perl examples/perl/greedy_bot.pl".
# It reads one line at a time: "arena 1", then "start {json}", "turn {json}",
# "rejected {json}", "over {json}" and finally "quit". After every "turn" line it prints
# exactly one line, its move. From the legal moves of the turn it plays the one with the
# most steps (in the substitution game: the most letters written this turn), the first
# such move on ties. When there are too many to list ("legal" is null) it builds a move
# step by step: it asks "?legal STEPS" and adds the first legal next step until none is
# left.
use strict;
use warnings;
use JSON::PP;

$| = 1;    # unbuffered: the bridge waits for each line
my $json = JSON::PP->new;
my ($games, $wins) = (0, 0);

sub build_by_steps {
    my ($first) = @_;    # the turn's legal_steps
    my ($steps, $options) = ('', $first);
    while (@{ $options->{steps} }) {
        $steps = $steps eq '' ? $options->{steps}[0] : "$steps$options->{separator}$options->{steps}[0]";
        print "?legal $steps\n";
        my ($keyword, $payload) = split / /, scalar(<STDIN>), 2;
        my $answer = $json->decode($payload);
        last if $answer->{error};
        $options = $answer->{legal_steps};
    }
    return $steps;
}

while (my $line = <STDIN>) {
    chomp $line;
    my ($keyword, $payload) = split / /, $line, 2;
    if ($keyword eq 'turn') {
        my $turn = $json->decode($payload);
        my $legal = $turn->{legal};
        if (!defined $legal && $turn->{legal_steps}) {
            print "# $turn->{legal_count} legal moves or more: building one step by step\n"
                if defined $turn->{legal_count};
            print build_by_steps($turn->{legal_steps}), "\n";
            next;
        }
        my ($best, $best_steps) = ('', -1);
        for my $move (@{ $legal // [] }) {
            my $steps = $move eq '' ? 0 : scalar(split /,/, $move);
            ($best, $best_steps) = ($move, $steps) if $steps > $best_steps;
        }
        print "$best\n";
    } elsif ($keyword eq 'over') {
        my $over = $json->decode($payload);
        $games++;
        $wins++ if defined $over->{winner} && defined $over->{seat} && $over->{winner} == $over->{seat};
        print STDERR "game $over->{game_id}: $over->{result} ($wins wins in $games games)\n";
    } elsif ($keyword eq 'quit') {
        last;
    }
    # "arena", "start" and "rejected" lines need no answer.
}
