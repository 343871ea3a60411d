#!/usr/bin/env ruby
# frozen_string_literal: true

# A bot for every game of the arena, written from docs/bots.md and the schema alone.
#
# It speaks the stdio bridge's line protocol (docs/server.md, "The stdio bridge"):
# `arena connect --url URL --token T --exec "ruby bot.rb"`, or locally as
# `exec:ruby bot.rb`. It knows no game's rules: it plays a random move of the
# turn's `legal` list, or, when the list is too long to send (`legal` null, as in
# the substitution game), builds a move step by step from `legal_steps`, asking the
# bridge for the next steps with `?legal STEPS`.
#
# Options (environment): ARENA_BOT_SEED seeds the random choices (default: random);
# ARENA_BOT_TRACE=1 writes every line it reads to standard error.

require 'json'

$stdout.sync = true
SEED = (ENV['ARENA_BOT_SEED'] || Random.new_seed).to_i
RNG = Random.new(SEED)
TRACE = ENV['ARENA_BOT_TRACE'] == '1'
# Stop building a step-built move once it may end and this many steps were made.
MAX_STEPS = 12
# Debug lines per game: the server keeps 200 (docs/bots.md, "Debug lines"); stay below.
MAX_NOTES = 100

# Lines read while waiting for a `legal` answer, to be handled afterwards.
PENDING = []

# Reads one line of the bridge: [keyword, payload] (payload nil when absent), nil at EOF.
def read_line
  return PENDING.shift unless PENDING.empty?

  read_stdin
end

# Reads the next line from the bridge itself, skipping PENDING.
def read_stdin
  line = $stdin.gets
  return nil if line.nil?

  line = line.chomp
  warn("< #{line}") if TRACE
  keyword, rest = line.split(' ', 2)
  [keyword, rest.nil? || rest.empty? ? nil : JSON.parse(rest)]
end

def send_line(text)
  raise ArgumentError, "a move must be one line: #{text.inspect}" if text.include?("\n")

  warn("> #{text}") if TRACE
  $stdout.write("#{text}\n")
end

def debug(text)
  send_line("# #{text}")
end

# Asks the bridge for the legal next steps after `prefix`; returns its `legal_steps`
# object, or nil if the bridge answered with an error.
def ask_legal(prefix)
  send_line("?legal #{prefix}")
  loop do
    keyword, payload = read_stdin
    raise 'the bridge closed while waiting for a legal line' if keyword.nil?

    unless keyword == 'legal'
      PENDING << [keyword, payload] # e.g. another game's start: handled after this move
      next
    end

    if payload['error']
      warn("legal request #{prefix.inspect} failed: #{payload['error'].inspect}")
      return nil
    end
    return payload['legal_steps']
  end
end

# Builds a move of a step-built game from the turn's `legal_steps`: a random legal step
# each time, ending when no step is left or (once ending is legal) by chance.
def build_move(legal_steps)
  separator = legal_steps['separator'] || ', '
  steps = []
  current = legal_steps
  loop do
    options = current['steps'] || []
    can_end = current['can_end']
    break if options.empty?
    break if can_end && (steps.size >= MAX_STEPS || RNG.rand < 0.25)

    steps << options[RNG.rand(options.size)]
    current = ask_legal(steps.join(separator))
    if current.nil?
      # Should not happen (every step came from the server); undo the last step.
      steps.pop
      break
    end
  end
  steps.join(separator)
end

# Returns [move, how it was chosen].
def choose_move(turn)
  legal = turn['legal']
  return [legal[RNG.rand(legal.size)], "one of #{legal.size} listed"] if legal.is_a?(Array) && !legal.empty?

  steps = turn['legal_steps']
  return [build_move(steps), 'built step by step'] if steps.is_a?(Hash)

  # No list and no steps: the docs promise one or the other with legal moves on.
  ['', "no legal moves offered (legal=#{legal.inspect}, legal_count=#{turn['legal_count'].inspect})"]
end

def main
  warn("ruby bot: seed #{SEED}")
  games = {}
  notes = Hash.new(0)
  loop do
    keyword, payload = read_line
    break if keyword.nil? || keyword == 'quit'

    case keyword
    when 'arena'
      nil # the line protocol's version; this bot speaks version 1
    when 'start'
      games[payload['game_id']] = payload['game']
    when 'turn'
      move, how = choose_move(payload)
      game_id = payload['game_id']
      debug("turn #{payload['turn']}: '#{move}' (#{how})") if (notes[game_id] += 1) <= MAX_NOTES
      send_line(move)
    when 'rejected'
      warn("rejected: #{payload.to_json}")
    when 'over'
      game = games.delete(payload['game_id'])
      notes.delete(payload['game_id'])
      warn("over #{game} #{payload['game_id']}: #{payload['result']} " \
           "(#{payload['termination']}), scores #{payload['scores'].inspect}")
    when 'legal'
      warn('a legal line came with no ?legal request pending')
    else
      warn("unknown line: #{keyword}")
    end
  end
end

main
