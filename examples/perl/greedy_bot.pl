#!/usr/bin/env perl
# A greedy bot for the arena's stdio bridge (docs/server.md, "The stdio bridge"):
#
#   arena connect --url ws://127.0.0.1:8765/ --token TOKEN --exec "perl examples/perl/greedy_bot.pl"
#
# It reads one line at a time: "arena 1", then "start {json}", "turn {json}",
# "rejected {json}", "over {json}" and finally "quit". After every "turn" line it prints
# exactly one line, its move. From the legal moves the bridge lists, it plays the one
# with the most steps (in the substitution game: the most letters written this turn),
# the first such move on ties; with no list it sends the empty move.
use strict;
use warnings;
use JSON::PP;

$| = 1;    # unbuffered: the bridge waits for each line
my $json = JSON::PP->new;
my ($games, $wins) = (0, 0);

while (my $line = <STDIN>) {
    chomp $line;
    my ($keyword, $payload) = split / /, $line, 2;
    if ($keyword eq 'turn') {
        my $turn = $json->decode($payload);
        my $legal = $turn->{legal} // [];
        my ($best, $best_steps) = ('', -1);
        for my $move (@$legal) {
            my $steps = $move eq '' ? 0 : scalar(split /,/, $move);
            ($best, $best_steps) = ($move, $steps) if $steps > $best_steps;
        }
        print "$best\n";
    } elsif ($keyword eq 'over') {
        my $over = $json->decode($payload);
        $games++;
        $wins++ if defined $over->{winner} && defined $over->{seat} && $over->{winner} == $over->{seat};
        print "# game $over->{game_id}: $over->{result} ($wins wins in $games games)\n";
    } elsif ($keyword eq 'quit') {
        last;
    }
    # "arena", "start" and "rejected" lines need no answer.
}
